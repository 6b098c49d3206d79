/** Outside systems behind ports (ctx.ports). */
import type { Signer } from '../auth/signer';
import type { BlobStore } from '../files/blob-store';
import type { RolePublisher } from './roles';

/** One method of a class as the registry knows it (for permission catalogues). */
export interface CatalogueMethod {
  name: string;
  kind: string;
  access: readonly string[];
}

export interface Ports {
  blobs: BlobStore;
  signer: Signer;
  roles: RolePublisher;
  /** the classes this runtime serves: class id → its methods with kind and access (read-only) */
  catalogue(): Record<string, CatalogueMethod[]>;
}

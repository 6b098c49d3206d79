/** Roles as the runtime's role check knows them (spec 5). */

/** A role as the runtime's role check knows it (spec 5). */
export interface RoleDefinition {
  id: string;
  name: string;
  /** 1 = super (every method), 10 = normal (explicit permissions) */
  level: number;
  /** class id → method names */
  permissions: Record<string, string[]>;
  status?: 'active' | 'inactive';
}

export interface RoleSnapshot {
  version: number;
  hash: string;
  publishedAt: string;
  roles: RoleDefinition[];
}

/** The published role snapshot that the runtime's role check reads (spec 5 "deployed as a cached dependency"). */
export interface RolePublisher {
  publish(snapshot: RoleSnapshot): Promise<void>;
  current(): Promise<RoleSnapshot | null>;
}

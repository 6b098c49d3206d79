/**
 * DataSubject: the requests a programme operator receives about one person's
 * data (GDPR, the UAE's PDPL): "send me everything you hold on me". One
 * instance per request (instance id = the request id); its state keeps who
 * asked for whose data and what was handed out, never the data.
 *
 * This file declares the methods and delegates to use-cases/; README.md has
 * the archive's layout, the scope rules and the error codes.
 */
import { ActorClass, Init } from '../../runtime';
import type { ExportSubjectInput } from '../../schemas/DataSubject/inputs';
import { ownedByCompany } from '../_platform/scope';
import type { DataSubjectClassState } from './types';
import { exportSubject, type DataSubjectCtx } from './use-cases/export';

@ActorClass<DataSubjectClassState>({
  id: 'DataSubject',
  description: "Requests about one person's data: export of everything held on them",
  // a request belongs to its subject's company: that company's users see their own, nobody else's
  tenancy: ownedByCompany((s) => s.private.export?.companyId),
})
export class DataSubject {
  /**
   * {subjectType, subjectId, includeDependants?} → 201, the ZIP archive (a
   * manifest and every record and file about the subject); audit-logged.
   */
  @Init({ access: ['program_management_user'] })
  exportSubject(ctx: DataSubjectCtx<ExportSubjectInput>) {
    return exportSubject(ctx);
  }
}

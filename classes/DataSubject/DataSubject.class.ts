/**
 * DataSubject: the requests a programme operator receives about one person's
 * data (GDPR, the UAE's PDPL): "send me everything you hold on me". One
 * instance per request (instance id = the request id); its state keeps who
 * asked for whose data and what was handed out, never the data.
 *
 * This file declares the methods and delegates to use-cases/; README.md has
 * the archive's layout, the scope rules and the error codes.
 */
import { ActorClass, Init, QueuedWrite, Read, Static, Write } from '../../runtime';
import type { ExportSubjectInput, RequestErasureInput } from '../../schemas/DataSubject/inputs';
import type { ApprovalCallbackBody } from '../_platform/workflow';
import { ownedByCompany } from '../_platform/scope';
import type { DataSubjectClassState } from './types';
import type { ExportRecord } from './types';
import type { DataSubjectCtx, DataSubjectReadCtx, DataSubjectStaticCtx } from './use-cases/common';
import * as erasure from './use-cases/erasure';
import { exportSubject, recordExport } from './use-cases/export';

@ActorClass<DataSubjectClassState>({
  id: 'DataSubject',
  description: "Requests about one person's data: export of everything held on them",
  // a request belongs to its subject's company: that company's users see their own, nobody else's
  tenancy: ownedByCompany((s) => s.private.export?.companyId ?? s.private.erasure?.companyId),
  // the values an approved erasure searches traces for, held until it ends: never shown by inspect or logged
  sensitiveFields: ['pendingValues'],
})
export class DataSubject {
  /**
   * {subjectType, subjectId, includeDependants?} → 201, the ZIP archive (a
   * manifest and every record and file about the subject); audit-logged.
   */
  @Static({ access: ['program_management_user'] })
  exportSubject(ctx: DataSubjectStaticCtx<ExportSubjectInput>) {
    return exportSubject(ctx);
  }

  /** The export's record on its own instance (id = export id), audit-logged in the name of whoever asked. */
  @Write({ access: ['class:DataSubject'], upsert: true })
  recordExport(ctx: DataSubjectCtx<ExportRecord>) {
    return recordExport(ctx);
  }

  /**
   * {subjectType, subjectId, includeDependants?, reason} → 201 {erasure, approval}: the request waits for
   * an approver (workflow event subject_erasure); audit-logged.
   */
  @Init({ access: ['program_management_user'] })
  requestErasure(ctx: DataSubjectCtx<RequestErasureInput>) {
    return erasure.requestErasure(ctx);
  }

  /** The approval callback (approve and reject): approved, the erasure is queued. */
  @QueuedWrite({ access: ['class:ApprovalManager'] })
  approveErasure(ctx: DataSubjectCtx<ApprovalCallbackBody>) {
    return erasure.approveErasure(ctx);
  }

  /** Every class erases the subjects, the runtime forgets their traces, the request is closed (several minutes at most). */
  @QueuedWrite({ access: ['class:DataSubject'], timeoutSeconds: 600 })
  runErasure(ctx: DataSubjectCtx<Record<string, never>>) {
    return erasure.runErasure(ctx);
  }

  /** → {erasure}: the request, its status and what was erased where (no personal value). */
  @Read({ access: ['program_management_user'] })
  getErasure(ctx: DataSubjectReadCtx<Record<string, never>>) {
    return erasure.getErasure(ctx);
  }
}

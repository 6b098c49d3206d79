/** The instance of an entity's files: init (opens it, names its company), and the INTERNAL reads getState and getInstanceId. */
import type { Ctx } from '../../../runtime';
import { fileManagerError } from '../errors';
import type { InitInput } from '../../../schemas/FileManager/inputs';
import type { FileManagerState, NoBody } from '../types';
import { claimCompany, entityOf, writableEntity } from './common';

export function init(ctx: Ctx<FileManagerState, InitInput>) {
  const entity = writableEntity(ctx);
  const body = ctx.request.body ?? {};
  claimCompany(ctx, body.companyId);
  if (
    (body.entityType ?? entity.entityType) !== entity.entityType ||
    (body.entityId ?? entity.entityId) !== entity.entityId
  ) {
    throw fileManagerError('ENTITY_MISMATCH', `The body names another entity than instance '${ctx.instanceId}'`);
  }
  return { instanceId: ctx.instanceId, entityType: entity.entityType, entityId: entity.entityId };
}

export function getState(ctx: Ctx<FileManagerState, NoBody>) {
  const s = ctx.state.private;
  return { entityType: s.entityType, entityId: s.entityId, files: s.files ?? [] };
}

export function getInstanceId(ctx: Ctx<FileManagerState, NoBody>) {
  return { instanceId: ctx.instanceId, ...entityOf(ctx) };
}

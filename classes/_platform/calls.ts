/** What a class-to-class call's failure means to the caller. */
import { ActorError, isNotDeployed, UNKNOWN_INSTANCE_CODE } from '../../runtime';

/**
 * The callee holds no such record: its own 404, or no instance at all (the
 * runtime's unknown-instance answer). The runtime's 404 for a class or method
 * that is not deployed is a failure, not an absent record.
 */
export function isAbsentRecord(err: unknown): boolean {
  if (!(err instanceof ActorError)) return false;
  return err.code === UNKNOWN_INSTANCE_CODE || (err.status === 404 && !isNotDeployed(err));
}

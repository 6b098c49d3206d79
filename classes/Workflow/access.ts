/**
 * Who may write a workflow configuration (init, setState,
 * updateWorkflowConfiguration). The rules decide who approves every
 * change of a class, so writing them is not a permission a role hands out:
 *  - a class identity: only its own configuration (the configuration's
 *    classId is the calling class), else 403 14008;
 *  - everyone else: the system identity and developers only
 *    (assertDeveloperOrSystem in classes/_platform/privileged.ts), else 403
 *    14007 (a program management user without `developer: true`, level 1 too).
 */
import type { Identity } from '../../runtime';

/** Pure: is this a class identity writing another class's configuration? */
export function isForeignConfiguration(identity: Identity, configClassId: string | undefined): boolean {
  return identity.type === 'class' && (identity.classId === undefined || identity.classId !== configClassId);
}

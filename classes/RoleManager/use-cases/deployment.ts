/**
 * The role snapshot's deployment (spec 5, 8): init (the singleton and its
 * first deployment) and saveRolesToLayerAndTriggerDeployment, which publishes
 * the snapshot when it differs from the one the role check reads, within the
 * cool-down (../deployment.ts planDeployment).
 */
import { hashRoles, planDeployment, publishedRoles } from '../deployment';
import { roleError } from '../errors';
import type { DeploymentAnswer } from '../types';
import { DEPLOY, enqueueDeployment, writable, type RoleCtx } from './common';

/** Creates the singleton with the built-in super role and queues the first deployment. */
export async function init(ctx: RoleCtx) {
  const s = writable(ctx);
  const deploymentJobId = await enqueueDeployment(ctx, 'init');
  return { roles: Object.keys(s.roles).length, deploymentJobId };
}

/** body {trigger?}: 'scheduled' marks the run scheduled at the end of a cool-down. */
export async function saveRolesToLayerAndTriggerDeployment(
  ctx: RoleCtx<{ trigger?: string }>,
  cooldownMs: number,
): Promise<DeploymentAnswer> {
  const trigger = ctx.request.body?.trigger;
  const s = writable(ctx);
  const dep = s.deployment;
  if (trigger === 'scheduled') dep.scheduledFor = null;
  const roles = publishedRoles(Object.values(s.roles));
  const hash = hashRoles(roles);
  const current = await ctx.ports.roles.current();
  const at = Date.now();
  const plan = planDeployment({
    now: at,
    hash,
    current: current && typeof current === 'object' && Array.isArray(current.roles) ? current : null,
    publishedVersion: dep.version,
    lastDeployedAt: dep.lastDeployedAt ? Date.parse(dep.lastDeployedAt) : null,
    scheduledFor: dep.scheduledFor ? Date.parse(dep.scheduledFor) : null,
    cooldownMs,
  });
  if (plan.kind === 'unchanged') {
    return { isUpdated: false, hash };
  }
  if (plan.kind === 'wait') {
    const nextDeploymentAvailable = new Date(plan.nextAvailable).toISOString();
    if (plan.schedule) {
      ctx.schedule({
        method: DEPLOY,
        delaySeconds: Math.max(0, (plan.nextAvailable - at) / 1000),
        body: { trigger: 'scheduled' },
      });
      dep.scheduledFor = nextDeploymentAvailable;
    }
    return { isUpdated: false, deploymentScheduled: true, nextDeploymentAvailable, hash };
  }
  const publishedAt = new Date(at).toISOString();
  try {
    await ctx.ports.roles.publish({ version: plan.version, hash, publishedAt, roles });
  } catch (err) {
    throw roleError('ROLE_DEPLOYMENT_FAILED', `The role snapshot could not be published: ${(err as Error).message}`);
  }
  s.deployment = { version: plan.version, hash, lastDeployedAt: publishedAt, scheduledFor: null };
  ctx.log.info({ version: plan.version, hash, roles: roles.length, restore: plan.restore }, 'role snapshot published');
  return { isUpdated: true, hash };
}

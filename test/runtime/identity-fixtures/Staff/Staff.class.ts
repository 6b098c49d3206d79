/**
 * Test fixture: a class that stores the users signing in as
 * program_management_user (an identity source) and signs them in with
 * ctx.tokens. No passwords: `signIn` issues a token for any stored user, as a
 * real class would after checking its credentials.
 */
import {
  ActorClass,
  Init,
  Read,
  Static,
  Write,
  type Ctx,
  type IdentitySourceAnswer,
  type ReadCtx,
  type StateOf,
  type StaticCtx,
  type TokenIssueRequest,
} from '../../../../runtime';

type StaffState = StateOf<{ user: IdentitySourceAnswer }>;

// fixture inputs are not checked by schemas
const OPERATOR = { access: ['integration_user'] as const, schema: false as const };

@ActorClass<StaffState>({
  id: 'Staff',
  description: 'identity source fixture',
  tenancy: { kind: 'shared' },
  identitySource: { tokenType: 'program_management_user', method: 'identity' },
})
export class Staff {
  @Init(OPERATOR)
  create(ctx: Ctx<StaffState, IdentitySourceAnswer>) {
    ctx.state.private.user = { ...ctx.request.body };
    return { id: ctx.instanceId };
  }

  /** replaces the stored user's fields given (null removes one) */
  @Write(OPERATOR)
  update(ctx: Ctx<StaffState, Record<string, unknown>>) {
    const user = ctx.state.private.user as unknown as Record<string, unknown>;
    for (const [k, v] of Object.entries(ctx.request.body)) {
      if (v === null) delete user[k];
      else user[k] = v;
    }
    return ctx.state.private.user;
  }

  /** the identity source: what the runtime asks for every token of this user */
  @Read({ access: ['class:Staff'], schema: false })
  identity(ctx: ReadCtx<StaffState>) {
    return ctx.state.private.user;
  }

  /** signs anyone in: `sub` and the rest of the issue request come from the body */
  @Static({ access: ['public'], schema: false })
  signIn(ctx: StaticCtx<TokenIssueRequest>) {
    return ctx.tokens.issue({ ...ctx.request.body, type: 'program_management_user' });
  }

  /** sign-out everywhere: the user's refresh tokens are revoked */
  @Write(OPERATOR)
  async signOutEverywhere(ctx: Ctx<StaffState>) {
    await ctx.tokens.revokeAll(ctx.instanceId!, 'program_management_user');
    return { revoked: true };
  }

  /** the caller as the runtime identified it (no role needed) */
  @Read({ access: ['program_management_user'], skipRoleCheck: true, schema: false })
  whoAmI(ctx: ReadCtx<StaffState>) {
    const { type, userId, roles, tenant, claims, methods } = ctx.identity;
    return {
      type,
      userId,
      roles,
      tenant: tenant ?? null,
      developer: claims?.developer === true,
      name: claims?.name ?? null,
      methods: methods ?? null,
    };
  }

  /** needs a role granting Staff.guarded */
  @Static({ access: ['program_management_user', 'enduser'], schema: false })
  guarded(ctx: StaticCtx) {
    return { userId: ctx.identity.userId };
  }

  /** the two methods a one-purpose token (member_otp) is issued for, and one it is not */
  @Static({ access: ['member_otp', 'program_management_user'], skipRoleCheck: true, schema: false })
  checkCode(ctx: StaticCtx) {
    return { userId: ctx.identity.userId, methods: ctx.identity.methods ?? null };
  }

  @Static({ access: ['member_otp', 'program_management_user'], skipRoleCheck: true, schema: false })
  resendCode(ctx: StaticCtx) {
    return { userId: ctx.identity.userId };
  }

  @Static({ access: ['member_otp', 'enduser', 'program_management_user'], skipRoleCheck: true, schema: false })
  profile(ctx: StaticCtx) {
    return { userId: ctx.identity.userId, type: ctx.identity.type, tenant: ctx.identity.tenant ?? null };
  }

  /** issues any token type (member_otp, enduser: no identity source) */
  @Static({ access: ['public'], schema: false })
  issueAny(ctx: StaticCtx<TokenIssueRequest>) {
    return ctx.tokens.issue(ctx.request.body);
  }

  /** a READ has no ctx.tokens (the type says so; at run time it is refused) */
  @Read({ access: ['integration_user'], schema: false })
  issueFromRead(ctx: ReadCtx<StaffState>) {
    return (ctx as unknown as StaticCtx).tokens.issue({ sub: 'x', type: 'enduser' });
  }
}

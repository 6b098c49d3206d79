/**
 * Spec 4.1: POST /<projectId>/CALL/Member/updateEmployeePhoto/<memberId | staffId!<staffId>>.
 *
 * EMPLOYEE_PHOTO_UPLOAD_FAILED (10018): 400 when the file store refused the
 * content (inner 4xx), 500 when the store itself failed (inner 5xx).
 */
import { waitFor, type TestRuntime, seedRoles } from '../support/harness';
import {
  API_KEY,
  createMember,
  IMAGES,
  memberLogs,
  memberState,
  seedProgram,
  startMemberRuntime,
  uniq,
} from './support';

let t: TestRuntime;
let approver: Record<string, string>;

beforeAll(async () => {
  t = await startMemberRuntime();
  await seedProgram(t);
  const roles = [{ id: 'r-approver', name: 'approver', level: 10, permissions: {} }];
  await seedRoles(t, roles);
  approver = { authorization: `Bearer ${t.token('program_management_user', 'ann', ['approver'])}` };
});
afterAll(() => t.stop());

const photoPath = (instanceId: string) => `/${t.projectId}/CALL/Member/updateEmployeePhoto/${instanceId}`;
const send = (instanceId: string, body: unknown, headers: Record<string, string> = API_KEY) =>
  t.post(photoPath(instanceId), body, headers);

async function review(approvalId: string, action: 'approve' | 'reject') {
  const r = await t.post(`/${t.projectId}/CALL/ApprovalManager/reviewApproval/${approvalId}`, { action }, approver);
  expect(r.status).toBe(200);
}

async function pendingPhotoOf(id: string) {
  return (await memberState(t, id)).state.private.pendingPhoto;
}

describe('success', () => {
  test('stores the photo, keeps the current photo until approval, raises MEMBER_ID_PHOTO_UPLOAD', async () => {
    const m = await createMember(t);
    const r = await send(m.id, { photo: IMAGES.png, fileExtension: 'png' });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ success: true });
    const s = (await memberState(t, m.id)).state.private;
    expect(s.profile.idPhoto).toBeNull();
    expect(s.pendingPhoto).toMatchObject({
      idPhoto: expect.stringMatching(new RegExp(`^member_${m.id}_[0-9a-f-]{36}\\.png$`)),
      previousIdPhoto: null,
      source: 'hr',
    });
    const blob = await t.rt.ports.blobs.get(s.pendingPhoto.idPhoto);
    expect(blob?.data.equals(Buffer.from(IMAGES.png, 'base64'))).toBe(true);
    const approval = (await t.rt.call('ApprovalManager', 'getApproval', s.pendingPhoto.approvalId)).body as Record<
      string,
      any
    >;
    expect(approval).toMatchObject({
      event: 'MEMBER_ID_PHOTO_UPLOAD',
      classId: 'Member',
      instanceId: m.id,
      entityId: m.id,
      approvalStatus: 'pending',
      approvers: ['approver'],
      approveCallback: { methodName: 'approveMemberIdPhoto' },
      actor: { type: 'system', name: 'integration:env-1' },
    });
    // logged, with the actor from the API key
    const logs = await waitFor(
      async () => {
        const l = await memberLogs(t, m.id);
        return l.find((e) => e.additionalData?.event === 'MEMBER_ID_PHOTO_UPLOAD') ?? null;
      },
      { what: 'photo log entry' },
    );
    expect(logs).toMatchObject({
      actor: { type: 'system', name: 'integration:env-1' },
      fieldUpdates: [{ key: 'pendingIdPhoto' }],
    });
  });

  test.each(['jpg', 'jpeg', 'gif', 'webp'] as const)('extension %s with matching content', async (ext) => {
    const m = await createMember(t);
    const content = ext === 'jpeg' ? IMAGES.jpg : IMAGES[ext];
    const r = await send(m.id, { photo: content, fileExtension: ext });
    expect(r.status).toBe(200);
    const file = (await pendingPhotoOf(m.id)).idPhoto as string;
    expect(file.endsWith(ext === 'jpeg' ? '.jpg' : `.${ext}`)).toBe(true);
  });

  test('instance by staffId!<staffId>', async () => {
    const staffId = uniq('S');
    const m = await createMember(t, { staffId });
    const r = await send(`staffId!${staffId}`, { photo: IMAGES.png, fileExtension: 'png' });
    expect(r.status).toBe(200);
    expect(await pendingPhotoOf(m.id)).toBeTruthy();
  });

  test('approval applies the photo and keeps the previous path; a pending_id_photo member moves on (3.1)', async () => {
    const m = await createMember(t, { loginMethod: 'sso' });
    expect(m.status).toBe('pending_id_photo');
    await send(m.id, { photo: IMAGES.png, fileExtension: 'png' });
    const first = await pendingPhotoOf(m.id);
    await review(first.approvalId, 'approve');
    await waitFor(async () => (await memberState(t, m.id)).state.private.profile.idPhoto === first.idPhoto, {
      what: 'photo approval',
    });
    let s = (await memberState(t, m.id)).state.private;
    expect(s.profile.status).toBe('pending_tier');
    expect(s.pendingPhoto).toBeNull();

    await send(m.id, { photo: IMAGES.gif, fileExtension: 'gif' });
    const second = await pendingPhotoOf(m.id);
    expect(second.previousIdPhoto).toBe(first.idPhoto);
    expect((await memberState(t, m.id)).state.private.profile.idPhoto).toBe(first.idPhoto);
    await review(second.approvalId, 'approve');
    await waitFor(async () => (await memberState(t, m.id)).state.private.profile.idPhoto === second.idPhoto, {
      what: 'second approval',
    });
    s = (await memberState(t, m.id)).state.private;
    expect(s.previousIdPhoto).toBe(first.idPhoto);
    expect(await t.rt.ports.blobs.get(first.idPhoto)).toBeTruthy();
  });

  test('rejection keeps the current photo; a newer upload supersedes a waiting one', async () => {
    const m = await createMember(t);
    await send(m.id, { photo: IMAGES.png, fileExtension: 'png' });
    const first = await pendingPhotoOf(m.id);
    await send(m.id, { photo: IMAGES.gif, fileExtension: 'gif' });
    const second = await pendingPhotoOf(m.id);
    expect(second.approvalId).not.toBe(first.approvalId);
    const v = (await memberState(t, m.id)).version;
    await review(first.approvalId, 'approve'); // superseded: changes nothing
    await review(second.approvalId, 'reject');
    await waitFor(async () => (await pendingPhotoOf(m.id)) === null, { what: 'rejection' });
    const s = await memberState(t, m.id);
    expect(s.state.private.profile.idPhoto).toBeNull();
    expect(s.version).toBe(v + 1);
  });
});

describe('errors', () => {
  test('401 without a valid key: {code, message}', async () => {
    const m = await createMember(t);
    for (const headers of [
      {},
      { 'x-api-key': 'nope' },
      { authorization: `Bearer ${t.token('enduser', m.id)}` },
    ] as Record<string, string>[]) {
      const r = await send(m.id, { photo: IMAGES.png, fileExtension: 'png' }, headers);
      expect(r.status).toBe(401);
      expect(r.body).toEqual({ code: 10072, message: 'Unauthorized: invalid or missing API key' });
    }
  });

  test('400 10005 for an extension outside the list or not lower case, listing the allowed ones', async () => {
    const m = await createMember(t);
    for (const ext of ['PNG', 'Jpg', 'bmp', 'svg', '']) {
      const r = await send(m.id, { photo: IMAGES.png, fileExtension: ext });
      expect(r.status).toBe(400);
      expect(r.body).toEqual({
        code: 10005,
        message: `Invalid file extension '${ext}'. Allowed extensions: jpg, jpeg, png, gif, webp`,
      });
    }
    expect(await pendingPhotoOf(m.id)).toBeUndefined();
  });

  test('400 validation error when a field is missing', async () => {
    const m = await createMember(t);
    const r = await send(m.id, { fileExtension: 'png' });
    expect(r.status).toBe(400);
    expect(r.body).toEqual({
      code: 10001,
      message: 'Validation error',
      details: { errors: { photo: ['is required'] } },
    });
  });

  test('10018 (400) when the content is not Base64 of an image of that type, with the inner code in details', async () => {
    const m = await createMember(t);
    const mismatch = await send(m.id, { photo: IMAGES.png, fileExtension: 'jpg' });
    expect(mismatch.status).toBe(400);
    expect(mismatch.body).toEqual({
      code: 10018,
      message: 'Employee photo upload failed',
      details: { code: 13004, message: expect.any(String) },
    });
    const notBase64 = await send(m.id, { photo: 'data:image/png;base64,' + IMAGES.png, fileExtension: 'png' });
    expect(notBase64.status).toBe(400);
    expect(notBase64.body).toMatchObject({ code: 10018, details: { code: 13002 } });
    expect(await pendingPhotoOf(m.id)).toBeUndefined();
  });

  test('10018 (500) when the file store fails, with the inner code in details', async () => {
    const m = await createMember(t);
    const blobs = t.rt.ports.blobs;
    const put = blobs.put;
    blobs.put = async () => {
      throw Object.assign(new Error('disk full'), { code: 'ENOSPC' });
    };
    try {
      const r = await send(m.id, { photo: IMAGES.png, fileExtension: 'png' });
      expect(r.status).toBe(500);
      expect(r.body).toEqual({
        code: 10018,
        message: 'Employee photo upload failed',
        details: { code: 13014, message: 'The file store failed to store the file' },
      });
    } finally {
      blobs.put = put;
    }
  });

  test('unknown instance: 500 with only a message (by id and by staff id)', async () => {
    for (const id of ['00000000-0000-0000-0000-000000000000', `staffId!${uniq('S')}`]) {
      const r = await send(id, { photo: IMAGES.png, fileExtension: 'png' });
      expect(r.status).toBe(500);
      expect(Object.keys(r.body)).toEqual(['message']);
      expect(r.body.message).toBe(`No instance with id '${id}' exists in class 'Member' of project '${t.projectId}'`);
    }
  });
});

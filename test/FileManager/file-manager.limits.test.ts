/**
 * Spec 8 size limits through HTTP: each kind at exactly its limit (stored and
 * downloadable byte for byte) and one byte over (FILE_TOO_LARGE, nothing
 * stored). A 10 MB document is about 13.4 MB of Base64 and fits the default
 * 16 MB body limit.
 */
import { MB } from '../../classes/_platform/file-types';
import { sample } from './samples';
import { fetchBytes, startFileRuntime, type FileTestRuntime } from './support';

let t: FileTestRuntime;
beforeAll(async () => {
  t = await startFileRuntime();
});
afterAll(() => t.stop());

const cases: Array<[string, string, string, number]> = [
  ['image (png)', 'png', 'image/png', 5 * MB],
  ['image (jpeg)', 'jpg', 'image/jpeg', 5 * MB],
  ['JSON', 'json', 'application/json', 5 * MB],
  ['document (pdf)', 'pdf', 'application/pdf', 10 * MB],
  ['document (xlsx)', 'xlsx', 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', 10 * MB],
];

describe.each(cases)('%s', (_label, ext, mimeType, limit) => {
  const instanceId = `Limit_${ext}`;

  test(`exactly ${limit} bytes is accepted and comes back byte for byte`, async () => {
    const data = sample(ext, limit);
    const r = await t.call('uploadFile', instanceId, { content: data.toString('base64'), mimeType });
    expect(r.status).toBe(200);
    expect(r.body.file.size).toBe(limit);
    const got = await fetchBytes(t.base + r.body.download.url);
    expect(got.status).toBe(200);
    expect(got.data.length).toBe(limit);
    expect(got.data.equals(data)).toBe(true);
    const viaGetFile = await t.call('getFile', instanceId, { fileId: r.body.file.id });
    expect(viaGetFile.status).toBe(200);
    expect(Buffer.from(viaGetFile.body.content, 'base64').equals(data)).toBe(true);
  });

  test('one byte over is FILE_TOO_LARGE and nothing is stored', async () => {
    const put = jest.spyOn(t.rt.ports.blobs, 'put');
    try {
      const r = await t.call('uploadFile', instanceId, {
        content: sample(ext, limit + 1).toString('base64'),
        mimeType,
      });
      expect(r.status).toBe(400);
      expect(r.body).toMatchObject({
        code: 13003,
        classId: 'FileManager',
        details: { size: limit + 1, maxBytes: limit },
      });
      expect(put).not.toHaveBeenCalled();
    } finally {
      put.mockRestore();
    }
  });
});

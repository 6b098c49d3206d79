/** classes/_platform/email.ts: an email here exactly when a request schema's `"format": "email"` takes it. */
import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import { isEmail } from '../../classes/_platform/email';

const ajv = new Ajv();
addFormats(ajv);
const schema = ajv.compile({ type: 'string', format: 'email', maxLength: 254 });

const SAMPLES = [
  'ada@example.com',
  'Ada.Lovelace+hr@mail.example.co.uk',
  'ops@localhost',
  'no-at-sign.example.com',
  'two@@example.com',
  'space in@example.com',
  '<ada@example.com>',
  'Ada <ada@example.com>',
  'ada@example',
  'ada@-example.com',
  '',
  `${'a'.repeat(250)}@example.com`,
];

test.each(SAMPLES)('%s: the same answer as the request schemas', (value) => {
  expect(isEmail(value)).toBe(schema(value));
});

test('only strings are emails', () => {
  for (const v of [null, undefined, 42, ['ada@example.com'], { email: 'ada@example.com' }])
    expect(isEmail(v)).toBe(false);
});

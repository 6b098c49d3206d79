/** _platform/template-preview.ts: the parameters a template preview renders with, and the test message's subject. */
import { previewParameters, sampleValue, testSubject } from '../../classes/_platform/template-preview';

test('each used parameter: the given value, else its sample; unused values left out', () => {
  expect(previewParameters(['name', 'code'], { name: 'Ann', other: 'x' })).toEqual({
    parameters: { name: 'Ann', code: '[code]' },
    sampled: ['code'],
  });
  expect(previewParameters(['name'], undefined)).toEqual({
    parameters: { name: sampleValue('name') },
    sampled: ['name'],
  });
  expect(previewParameters([], { name: 'Ann' })).toEqual({ parameters: {}, sampled: [] });
});

test("a parameter named like an Object property is an own value, never the prototype's", () => {
  const given = JSON.parse('{"__proto__": "P", "constructor": "C"}') as Record<string, string>;
  const { parameters, sampled } = previewParameters(['__proto__', 'constructor', 'toString'], given);
  expect(Object.getOwnPropertyNames(parameters).sort()).toEqual(['__proto__', 'constructor', 'toString']);
  expect(Object.getPrototypeOf(parameters)).toBe(Object.prototype);
  expect(parameters.constructor).toBe('C');
  expect(sampled).toEqual(['toString']);
});

test('a test message is marked in its subject', () => {
  expect(testSubject('Welcome')).toBe('[Test] Welcome');
});

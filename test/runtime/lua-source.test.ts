/**
 * The runtime's Lua scripts: each a named file with its KEYS and ARGV in its header, defined with what they share
 * copied in (`-- @include <name>`); no script is written inline in the TypeScript.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { luaSource } from '../../runtime/actor/lua-source';

const dir = path.join(__dirname, '../../runtime/actor/lua');
const scripts = fs
  .readdirSync(dir)
  .filter((f) => f.endsWith('.lua'))
  .map((f) => f.slice(0, -4));

test.each(scripts)('%s is defined with every include expanded', (name) => {
  const src = luaSource(name);
  expect(src).not.toMatch(/@include/);
  const raw = fs.readFileSync(path.join(dir, `${name}.lua`), 'utf8');
  for (const [, inc] of raw.matchAll(/^-- @include ([A-Za-z]+)$/gm)) {
    expect(src).toContain(fs.readFileSync(path.join(dir, 'includes', `${inc}.lua`), 'utf8'));
  }
});

test('the scripts that give a lease up all hand it to its waiters the same way', () => {
  for (const name of ['acquireInstance', 'releaseLease', 'commitInstance']) {
    expect(luaSource(name)).toContain('local function releaseToWaiters(');
  }
});

test.each(scripts)('%s says what it takes in its header', (name) => {
  const header = fs
    .readFileSync(path.join(dir, `${name}.lua`), 'utf8')
    .split('\n')
    .filter((l) => l.startsWith('--'))
    .join('\n');
  expect(header).toMatch(/KEYS\[1\]/);
});

test('no Lua is written inline in the runtime', () => {
  const inline: string[] = [];
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith('.ts') && /redis\.call\(/.test(fs.readFileSync(p, 'utf8')))
        inline.push(path.relative(path.join(__dirname, '../..'), p));
    }
  };
  walk(path.join(__dirname, '../../runtime'));
  expect(inline).toEqual([]);
});

/** The runtime's Lua scripts are defined with what they share copied in (`-- @include <name>`). */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { luaSource } from '../../runtime/actor/state-store';

const dir = path.join(__dirname, '../../runtime/actor/lua');
const scripts = fs.readdirSync(dir).filter((f) => f.endsWith('.lua')).map((f) => f.slice(0, -4));

test.each(scripts)('%s is defined with every include expanded', (name) => {
  const src = luaSource(dir, name);
  expect(src).not.toMatch(/@include/);
  const raw = fs.readFileSync(path.join(dir, `${name}.lua`), 'utf8');
  for (const [, inc] of raw.matchAll(/^-- @include ([A-Za-z]+)$/gm)) {
    expect(src).toContain(fs.readFileSync(path.join(dir, 'includes', `${inc}.lua`), 'utf8'));
  }
});

test('the scripts that give a lease up all hand it to its waiters the same way', () => {
  for (const name of ['acquireInstance', 'releaseLease', 'commitInstance']) {
    expect(luaSource(dir, name)).toContain('local function releaseToWaiters(');
  }
});

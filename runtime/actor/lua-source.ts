/**
 * The runtime's Lua scripts, one named file each under runtime/actor/lua
 * (its KEYS and ARGV written in its header), read once per process. Compiled
 * code finds them in the source tree, or where the image copies them next to
 * the compiled files.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

let dir: string | undefined;

/** where the scripts are: next to this file, else in the source tree */
export function luaDir(): string {
  if (dir) return dir;
  const here = path.join(__dirname, 'lua');
  dir = fs.existsSync(here) ? here : path.resolve(__dirname, '../../../runtime/actor/lua');
  return dir;
}

const sources = new Map<string, string>();

/**
 * A script's source with each `-- @include <name>` line replaced by
 * `includes/<name>.lua` (a Redis script cannot load another: what several
 * scripts share is written once and copied in when they are defined).
 */
export function luaSource(name: string): string {
  let s = sources.get(name);
  if (s === undefined) {
    const d = luaDir();
    s = fs
      .readFileSync(path.join(d, `${name}.lua`), 'utf8')
      .replace(/^-- @include ([A-Za-z]+)$/gm, (_, inc: string) =>
        fs.readFileSync(path.join(d, 'includes', `${inc}.lua`), 'utf8'),
      );
    sources.set(name, s);
  }
  return s;
}

/**
 * Preloaded into a benchmark child (`node --import ./bench/profile-hook.mjs ...`)
 * by bench/profile-calls.ts: SIGUSR2 starts the V8 CPU profiler in this process
 * (then `<PROFILE_DIR>/started-<n>` appears), the next SIGUSR2 stops it and
 * writes `<PROFILE_DIR>/profile-<n>.cpuprofile`. So a profile covers one load
 * phase only, not start-up and fixtures as `node --cpu-prof` does.
 * Plain JavaScript so that it loads before tsx's loader is registered.
 */
import * as fs from 'node:fs';
import * as inspector from 'node:inspector';
import * as path from 'node:path';

const dir = process.env.PROFILE_DIR;
const intervalUs = Number(process.env.PROFILE_INTERVAL_US || 250);
/** PROFILE_HEAP=1: a sampling heap profile (allocations by function) is taken alongside, `<n>.heapprofile` */
const heap = process.env.PROFILE_HEAP === '1';
if (dir) {
  const session = new inspector.Session();
  session.connect();
  const post = (method, params) =>
    new Promise((resolve, reject) =>
      session.post(method, params ?? {}, (err, res) => (err ? reject(err) : resolve(res))),
    );
  let running = false;
  let n = 0;
  let busy = Promise.resolve();
  process.on('SIGUSR2', () => {
    busy = busy
      .then(async () => {
        if (!running) {
          n += 1;
          await post('Profiler.enable');
          await post('Profiler.setSamplingInterval', { interval: intervalUs });
          await post('Profiler.start');
          if (heap)
            await post('HeapProfiler.startSampling', {
              samplingInterval: 1024,
              includeObjectsCollectedByMajorGC: true,
              includeObjectsCollectedByMinorGC: true,
            });
          running = true;
          fs.writeFileSync(path.join(dir, `started-${n}`), '');
        } else {
          const { profile } = await post('Profiler.stop');
          if (heap) {
            const { profile: allocations } = await post('HeapProfiler.stopSampling');
            fs.writeFileSync(path.join(dir, `profile-${n}.heapprofile`), JSON.stringify(allocations));
          }
          running = false;
          const file = path.join(dir, `profile-${n}.cpuprofile`);
          fs.writeFileSync(`${file}.tmp`, JSON.stringify(profile));
          fs.renameSync(`${file}.tmp`, file);
        }
      })
      .catch((err) => process.stderr.write(`profile-hook: ${err?.stack ?? err}\n`));
  });
}

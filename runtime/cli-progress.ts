/**
 * Progress of a long CLI command (seed, import, reproject), on stderr so that
 * stdout keeps the command's JSON answer: a cli-progress bar with the rate and
 * ETA on a terminal, otherwise (a log, a pipe, CI) a line every few seconds and
 * one at the end.
 */
import bars from 'cli-progress';

export interface CliProgress {
  /** `done` so far; `total` when it is known (or grew) by now */
  tick(done: number, total?: number): void;
  /** the bar closed, or the last line written */
  stop(): void;
}

export interface CliProgressOptions {
  /** what is counted, plural: rows, records, instances */
  unit: string;
  /**
   * the expected total, asked for only on a terminal (it may cost a pass over
   * a file); 0 or absent when unknown: the bar's total follows what is done
   */
  total?: () => number;
  /** where it is written (default process.stderr) */
  stream?: NodeJS.WriteStream;
  /** without a terminal, one line at most this often (default 5000 ms) */
  everyMs?: number;
}

function rateOf(done: number, started: number): number {
  return Math.round(done / Math.max(0.001, (Date.now() - started) / 1000));
}

/** A progress display for `label` (the command or sheet), counting `opts.unit`. */
export function progress(label: string, opts: CliProgressOptions): CliProgress {
  const stream = opts.stream ?? process.stderr;
  const started = Date.now();
  if (stream.isTTY) {
    const bar = new bars.SingleBar(
      {
        stream,
        format: `${label} [{bar}] {value}/{total} ${opts.unit} | {rate} ${opts.unit}/s | ETA {eta_formatted}`,
        etaBuffer: 200,
      },
      bars.Presets.shades_classic,
    );
    bar.start(opts.total?.() ?? 0, 0, { rate: 0 });
    return {
      tick: (done, total) => {
        if (total !== undefined && total !== bar.getTotal()) bar.setTotal(total);
        if (done > bar.getTotal()) bar.setTotal(done);
        bar.update(done, { rate: rateOf(done, started) });
      },
      stop: () => bar.stop(),
    };
  }
  const everyMs = opts.everyMs ?? 5000;
  let last = started;
  let count = 0;
  let expected: number | undefined;
  const of = () => (expected ? `${count}/${expected}` : `${count}`);
  return {
    tick: (done, total) => {
      count = done;
      if (total) expected = total;
      if (Date.now() - last < everyMs) return;
      last = Date.now();
      stream.write(`${label}: ${of()} ${opts.unit}, ${rateOf(done, started)} ${opts.unit}/s\n`);
    },
    stop: () => stream.write(`${label}: ${of()} ${opts.unit} done\n`),
  };
}

import type { ProgressEvent } from '../project/migrate.js';

export const PHASES: Record<ProgressEvent['phase'], string> = {
  read: 'reading',
  'sdk-upgrade': 'upgrading v1 code',
  rewrite: 'rewriting',
  verify: 'type-checking',
  write: 'writing',
};

export interface Progress {
  update(event: ProgressEvent): void;
  done(): void;
}

interface Stream {
  isTTY?: boolean;
  columns?: number;
  write(text: string): boolean;
}

/**
 * On an interactive terminal: one bar redrawn in place on stderr, shown only once a run lasts
 * long enough to want it. Elsewhere (pipes, CI): one plain line per phase.
 */
export function createProgress(stream: Stream, options: { enabled: boolean; ci: boolean }): Progress {
  if (!options.enabled) return { update() {}, done() {} };
  if (stream.isTTY && !options.ci) return barProgress(stream);
  let phase: string | undefined;
  return {
    update(event) {
      if (event.phase === phase || event.total === 0) return;
      phase = event.phase;
      stream.write(`mrtr-migrate: ${PHASES[event.phase]} ${event.total} file(s)\n`);
    },
    done() {},
  };
}

function barProgress(stream: Stream): Progress {
  const started = Date.now();
  let last = 0;
  let drawn = false;
  return {
    update(event) {
      const now = Date.now();
      if (now - started < 400 || now - last < 80) return;
      last = now;
      const width = Math.max(10, Math.min(30, (stream.columns ?? 80) - 60));
      const ratio = event.total === 0 ? 1 : Math.min(1, (event.done + 1) / event.total);
      const filled = Math.round(ratio * width);
      const label = `${PHASES[event.phase]} ${event.done + 1}/${event.total}`;
      const room = Math.max(0, (stream.columns ?? 80) - width - label.length - 6);
      const file = event.file && room > 4 ? ` ${event.file.length > room ? '…' + event.file.slice(-(room - 1)) : event.file}` : '';
      stream.write(`\r\x1b[K[${'█'.repeat(filled)}${'░'.repeat(width - filled)}] ${label}${file}`);
      drawn = true;
    },
    done() {
      if (drawn) stream.write('\r\x1b[K');
    },
  };
}

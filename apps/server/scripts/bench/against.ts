/**
 * `pnpm bench --against <git ref>`: the other build's server, made in a
 * temporary git worktree of this repository, and the comparison of its rounds with the current
 * build's. Only its server is used: the current bench's client drives both over HTTP, so a ref
 * whose bench or seed script differs is measured the same way.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** What a step's failure shows of its output: the end, where the error is. */
const tail = (text: string, lines = 30) => text.trimEnd().split('\n').slice(-lines).join('\n');

/** Runs `command` in `cwd` within `timeoutMs`; on failure, an error with the end of its output. */
const step = async (label: string, command: string, args: string[], cwd: string, timeoutMs: number) => {
  try {
    await run(command, args, {
      cwd,
      timeout: Math.max(1_000, timeoutMs),
      maxBuffer: 64 * 1024 * 1024,
      env: { ...process.env, TURBO_TELEMETRY_DISABLED: '1' },
    });
  } catch (error) {
    const { stdout = '', stderr = '', killed } = error as { stdout?: string; stderr?: string; killed?: boolean };
    throw new Error(
      `${label} ${killed ? 'ran out of time' : 'failed'} (${command} ${args.join(' ')} in ${cwd}):\n${tail(`${stdout}\n${stderr}`)}`,
      { cause: error },
    );
  }
};

export interface RefBuild {
  /** The commit the ref names, abbreviated. */
  commit: string;
  /** Its apps/server folder, built: `dist/main.js` is its server. */
  serverRoot: string;
  /** Removes the worktree (and its node_modules); safe to call twice. */
  remove: () => Promise<void>;
}

/**
 * Checks `ref` out in a temporary worktree of the repository at `repoDir` and builds its server
 * (`pnpm install --frozen-lockfile`, offline from the store when it can, then turbo's build of
 * the server and what it depends on), within `deadline` (ms since the epoch). The worktree is
 * removed again if any of it fails. A ref this clone does not hold (a shallow CI clone) is an
 * error saying so.
 */
export const buildRef = async (repoDir: string, ref: string, deadline: number): Promise<RefBuild> => {
  const left = () => deadline - Date.now();
  const resolved = await run('git', ['rev-parse', '--verify', '--quiet', `${ref}^{commit}`], { cwd: repoDir }).catch(
    () => undefined,
  );
  if (!resolved) throw new Error(`'${ref}' is not a commit of this clone (a shallow clone? git fetch --deepen)`);
  const commit = resolved.stdout.trim();
  const dir = await mkdtemp(path.join(tmpdir(), 'sales-orders-against-'));
  let removed = false;
  const remove = async () => {
    if (removed) return;
    removed = true;
    await run('git', ['worktree', 'remove', '--force', dir], { cwd: repoDir }).catch(() => undefined);
    await rm(dir, { recursive: true, force: true });
    await run('git', ['worktree', 'prune'], { cwd: repoDir }).catch(() => undefined);
  };
  try {
    await step('checking out', 'git', ['worktree', 'add', '--detach', dir, commit], repoDir, left());
    console.log(`building ${ref} (${commit.slice(0, 10)}) in ${dir}...`);
    try {
      await step('pnpm install --offline', 'pnpm', ['install', '--frozen-lockfile', '--offline'], dir, left());
    } catch (error) {
      // Packages of the ref's lockfile that this machine's store does not hold: from the registry.
      console.log(`pnpm install --offline failed (${(error as Error).message.split('\n').at(-1)}); from the registry`);
      await step('pnpm install', 'pnpm', ['install', '--frozen-lockfile', '--prefer-offline'], dir, left());
    }
    await step(
      'pnpm build',
      'pnpm',
      ['exec', 'turbo', 'run', 'build', '--filter=@sales-order/server...', '--output-logs=errors-only'],
      dir,
      left(),
    );
    return { commit: commit.slice(0, 10), serverRoot: path.join(dir, 'apps/server'), remove };
  } catch (error) {
    await remove();
    throw error;
  }
};

/** One round of a scenario on one build. */
export interface Round {
  rps: number;
  p99: number | null;
  cpuUs: number | null;
  failed: number;
  answered: number;
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};

/**
 * The current build's rounds of one scenario read against the ref's: the ratio of their medians
 * (req/s, CPU per request), and whether the CPU of every round of one lies beyond every round of
 * the other; otherwise in how many rounds the current build's CPU was above the ref's in the
 * same round (the two ran one after the other, under about the same load). On a machine whose
 * load moves, a difference is more than the noise when it holds in every round.
 */
export const compareRounds = (current: Round[], ref: Round[]) => {
  const ratio = (mine: number[], theirs: number[]) =>
    mine.length > 0 && theirs.length > 0 && median(theirs) > 0 ? median(mine) / median(theirs) : null;
  const cpuOf = (rounds: Round[]) => rounds.flatMap((round) => (round.cpuUs === null ? [] : [round.cpuUs]));
  const [mine, theirs] = [cpuOf(current), cpuOf(ref)];
  const pairs = current.flatMap((round, index) => {
    const other = ref[index]?.cpuUs;
    return round.cpuUs === null || other === null || other === undefined ? [] : [round.cpuUs > other];
  });
  const verdict =
    mine.length < 2 || theirs.length < 2
      ? 'too few rounds to tell'
      : Math.min(...mine) > Math.max(...theirs)
        ? 'more CPU in every round'
        : Math.max(...mine) < Math.min(...theirs)
          ? 'less CPU in every round'
          : `rounds overlap; more CPU in ${pairs.filter(Boolean).length} of ${pairs.length} rounds`;
  return {
    rps: ratio(
      current.map((round) => round.rps),
      ref.map((round) => round.rps),
    ),
    cpu: ratio(mine, theirs),
    verdict,
  };
};

/** A build's rounds as the table shows them: each round's figure, in the order they ran. */
export const roundsText = (rounds: Round[], figure: (round: Round) => number | null) =>
  rounds.map((round) => figure(round) ?? '-').join(' / ') || '-';

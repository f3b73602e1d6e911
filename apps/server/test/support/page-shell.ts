import { type ChildProcess, spawn } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { createInterface, type Interface } from 'node:readline';

/**
 * One bash for one documentation page, as a reader's terminal: variables a command sets stay set
 * for the page's next commands. Each step runs with stdin from /dev/null (a command waiting
 * for input would otherwise read the next commands), its output kept apart.
 */
export class PageShell {
  private readonly child: ChildProcess;
  private readonly lines: Interface;
  private waiting: ((line: string) => void) | undefined;
  private count = 0;

  constructor(
    private readonly dir: string,
    env: Record<string, string>,
  ) {
    this.child = spawn('bash', ['--noprofile', '--norc'], { cwd: dir, env, stdio: ['pipe', 'pipe', 'inherit'] });
    this.lines = createInterface({ input: this.child.stdout! });
    this.lines.on('line', (line) => this.waiting?.(line));
  }

  /** Runs `script` as the page's next commands: what it printed to stdout and stderr, and its exit status. */
  async run(script: string, timeoutMs = 60_000): Promise<{ stdout: string; stderr: string; status: number }> {
    const n = ++this.count;
    const file = (suffix: string) => path.join(this.dir, `.step-${n}.${suffix}`);
    await writeFile(file('sh'), `${script}\n`);
    const done = new Promise<number>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`the commands did not finish within ${timeoutMs} ms`)),
        timeoutMs,
      );
      this.waiting = (line) => {
        const match = /^__docs_step_(\d+)_done (\d+)$/.exec(line);
        if (match && Number(match[1]) === n) {
          clearTimeout(timer);
          resolve(Number(match[2]));
        }
      };
    });
    this.child.stdin!.write(
      `source ${file('sh')} </dev/null >${file('out')} 2>${file('err')}; echo "__docs_step_${n}_done $?"\n`,
    );
    const status = await done;
    return { stdout: await readFile(file('out'), 'utf8'), stderr: await readFile(file('err'), 'utf8'), status };
  }

  /** The shell's exported variables now (what a `pnpm start` typed in it would see). */
  async exported(): Promise<Record<string, string>> {
    const { stdout } = await this.run(`node -e 'process.stdout.write(JSON.stringify(process.env))'`);
    return JSON.parse(stdout) as Record<string, string>;
  }

  close() {
    this.lines.close();
    this.child.kill('SIGKILL');
  }
}

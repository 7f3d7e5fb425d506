import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ChildWorker, sparePort, spawnCompiled } from '../resilience/processes';

/** One API process of the fleet: its base URL and the child process. */
export interface ApiProcess {
  url: string;
  child: ChildWorker;
}

/**
 * The compiled API (main.js) and worker (worker.js) processes of the scale test, all with one
 * environment (the topology's database and Redis plus the short durations), so they behave as one
 * deployment. Workers can be added, stopped (SIGTERM) and killed (SIGKILL) as the scenarios need.
 */
export class Fleet {
  readonly apis: ApiProcess[] = [];
  readonly workers: ChildWorker[] = [];
  private readonly everyChild: { name: string; child: ChildWorker }[] = [];

  constructor(private readonly env: Record<string, string>) {}

  async startApis(count: number): Promise<void> {
    const started = await Promise.all(
      Array.from({ length: count }, async () => {
        const port = await sparePort();
        const child = this.track(
          'api',
          spawnCompiled('main.js', { ...this.env, PORT: String(port), HOST: '127.0.0.1', METRICS_PORT: '0' }),
        );
        return { url: `http://127.0.0.1:${port}`, child };
      }),
    );
    await Promise.all(started.map((api) => api.child.ready));
    this.apis.push(...started);
  }

  /** Starts or gracefully stops workers until `count` are running. */
  async scaleWorkersTo(count: number): Promise<void> {
    const added: ChildWorker[] = [];
    while (this.workers.length + added.length < count)
      added.push(this.track('worker', spawnCompiled('worker.js', { ...this.env, METRICS_PORT: '0' })));
    await Promise.all(added.map((w) => w.ready));
    this.workers.push(...added);
    while (this.workers.length > count)
      await this.stopWorker(this.workers[this.workers.length - 1], 'SIGTERM');
  }

  /** Stops one worker with `signal` and waits for its exit; returns the exit code (null: killed). */
  async stopWorker(worker: ChildWorker, signal: 'SIGTERM' | 'SIGKILL'): Promise<number | null> {
    this.workers.splice(this.workers.indexOf(worker), 1);
    worker.process.kill(signal);
    return worker.exited;
  }

  /**
   * Kills every process still running; with SCALE_LOG_DIR set, leaves each one's output there
   * (api-1.log, worker-2.log…: the warnings and errors a failed run needs).
   */
  async stopAll(): Promise<void> {
    await Promise.all(
      this.everyChild
        .map(({ child }) => child)
        .filter((c) => c.process.exitCode === null && c.process.signalCode === null)
        .map((c) => (c.process.kill('SIGKILL'), c.exited)),
    );
    const dir = process.env.SCALE_LOG_DIR;
    if (dir)
      for (const { name, child } of this.everyChild) writeFileSync(join(dir, `${name}.log`), child.output());
  }

  private track(kind: 'api' | 'worker', child: ChildWorker): ChildWorker {
    const n = this.everyChild.filter(({ name }) => name.startsWith(kind)).length + 1;
    this.everyChild.push({ name: `${kind}-${n}`, child });
    return child;
  }
}

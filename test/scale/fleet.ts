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
  private readonly everyChild: ChildWorker[] = [];

  constructor(private readonly env: Record<string, string>) {}

  async startApis(count: number): Promise<void> {
    const started = await Promise.all(
      Array.from({ length: count }, async () => {
        const port = await sparePort();
        const child = this.track(
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
      added.push(this.track(spawnCompiled('worker.js', { ...this.env, METRICS_PORT: '0' })));
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

  async stopAll(): Promise<void> {
    await Promise.all(
      this.everyChild
        .filter((c) => c.process.exitCode === null && c.process.signalCode === null)
        .map((c) => (c.process.kill('SIGKILL'), c.exited)),
    );
  }

  private track(child: ChildWorker): ChildWorker {
    this.everyChild.push(child);
    return child;
  }
}

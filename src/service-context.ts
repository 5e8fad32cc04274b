import type { Config } from "./config.ts";
import type { Adapters } from "./adapters.ts";
import type { Consumer } from "./bus/port.ts";
import { Checkpoints } from "../projections/checkpoints.ts";
import { Semaphore } from "./core/semaphore.ts";
import { Leases, holdLeadership, type LeasedWork, type Leadership } from "./core/lease.ts";
import type { JobObserver } from "./core/worker.ts";
import type { PeriodicJob } from "./core/periodic-job.ts";
import type { RequestObserver } from "./http/request-observer.ts";
import { requestLog } from "./http/request-log.ts";
import { jobLog } from "../workers/job-log.ts";

/** What the roles of one process share, and what they leave running for `stop` to end. */
export type ServiceContext = {
  config: Config;
  adapters: Adapters;
  checkpoints: Checkpoints;
  leases: Leases;
  /** What is told about each answered request and each worker's delivery: logs and metrics. */
  requestObservers: RequestObserver[];
  jobObservers: JobObserver[];
  /** Shared by the API's large bodies and the workers' large summaries: in the embedded profile they take memory from one process. */
  heavyWork: Semaphore;
  /** Work that one process of all the replicas does, the holder of its lease (the relay, the projection writer). */
  lease(name: string, start: () => Promise<LeasedWork>): Leadership;
  leaderships: Leadership[];
  consumers: Consumer[];
  jobs: PeriodicJob[];
};

export function serviceContext(config: Config, adapters: Adapters): ServiceContext {
  const leases = new Leases(adapters.documents);
  const leaderships: Leadership[] = [];
  return {
    config,
    adapters,
    checkpoints: new Checkpoints(adapters.documents),
    leases,
    requestObservers: [requestLog()],
    jobObservers: [jobLog()],
    heavyWork: new Semaphore(config.heavyWorkAtOnce),
    lease: (name, start) => {
      const leadership = holdLeadership(leases, name, start, { ttlMs: config.leaseTtlMs });
      leaderships.push(leadership);
      return leadership;
    },
    leaderships,
    consumers: [],
    jobs: [],
  };
}

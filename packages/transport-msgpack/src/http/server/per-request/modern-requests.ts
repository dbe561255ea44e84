import { closeInstance, type ConnectableServer, type ServedInstance } from '../exchange/served-instance.js';
import type { RequestEra } from '../exchange/era.js';
import type { HttpHandleOptions, HttpMsgpackServerOptions, HttpRequestLike } from '../exchange/server-options.js';
import { KeptServers } from './kept-servers.js';
import { ListenSubscriptions, type ListenNotifier } from './listen-subscriptions.js';
import { bindModern, listenContextOf, modernRevisionsOf, seedClientIdentity } from './modern-binding.js';
import type { ModernEndpoint } from './modern-endpoint.js';
import { watchExchange, withLadderStatus } from './modern-status.js';
import { PerRequestTransport } from './request-transport.js';

/** Most idle servers kept for reuse (per revision). */
const MAX_KEPT_SERVERS = 16;

type Instance = ServedInstance<PerRequestTransport>;

/** What the endpoint gives the per-request path. */
export interface ModernRequestsHost {
  /** Keep a bound server for later requests (reuseServers). */
  readonly reuse: boolean;
  /** The transport options the endpoint's options make. */
  readonly transportOptions: HttpMsgpackServerOptions;
  createServer(): ConnectableServer | Promise<ConnectableServer>;
  /** Whether the endpoint has closed (then nothing is kept). */
  closed(): boolean;
  /** Serves one request on an instance and closes it after, unless `keep` takes it back (serveOnce). */
  serveOnce(instance: Instance, req: HttpRequestLike, options: HttpHandleOptions, era: RequestEra, keep?: (instance: Instance) => boolean): Promise<Response>;
}

/**
 * The requests of a modern revision at one endpoint: no session, a server bound to the revision (SDK v2
 * servers) for each exchange, fresh or kept from an earlier one, and the `subscriptions/listen` streams,
 * which outlive any one request and so belong to the endpoint.
 */
export class ModernRequests {
  private readonly kept = new KeptServers<Instance>(MAX_KEPT_SERVERS);
  private readonly listeners = new ListenSubscriptions();

  constructor(private readonly host: ModernRequestsHost) {}

  /** Change notifications for the listen streams open at this endpoint. */
  get notify(): ListenNotifier {
    return this.listeners.notify;
  }

  get listenCount(): number {
    return this.listeners.count;
  }

  get keptCount(): number {
    return this.kept.size;
  }

  /**
   * One request: the transport checks the body against the headers (-32020 on a mismatch); a server that
   * cannot serve the revision gets its requests answered with -32022.
   */
  async serve(req: HttpRequestLike, options: HttpHandleOptions, era: RequestEra, revision: string): Promise<Response> {
    const reuse = this.host.reuse;
    let bound = false;
    const reused = reuse ? this.kept.take(revision) : undefined;
    const instance = reused ?? (await this.open(revision, reuse, (ok) => (bound = ok)));
    // Given back only when nothing of this request is still running on it (a client that went away
    // mid-call leaves its handler running: that instance is closed instead, so no answer can cross over).
    const keep = (kept: Instance) => reuse && !this.host.closed() && kept.transport.pendingRequestCount === 0 && this.kept.give(revision, kept);
    const watch = watchExchange(instance.transport);
    return withLadderStatus(req, await this.host.serveOnce(instance, req, options, era, reused !== undefined || bound ? keep : undefined), watch);
  }

  /** Closes the kept servers: the next request makes one again. */
  releaseKept(): void {
    for (const instance of this.kept.drain()) void closeInstance(instance);
  }

  async closeAll(): Promise<void> {
    this.listeners.closeAll();
    await Promise.all(this.kept.drain().map(closeInstance));
  }

  /** A new server, bound to the revision when it can be, connected to a transport of its own. */
  private async open(revision: string, sequential: boolean, bound: (ok: boolean) => void): Promise<Instance> {
    const server = await this.host.createServer();
    // All it can serve, not just this one: a -32022 answer lists them.
    const revisions = modernRevisionsOf(server);
    bound(revisions.includes(revision) && bindModern(server, revision));
    const transport = new PerRequestTransport({ ...this.host.transportOptions, modernRevisions: revisions }, this.endpointFor(server, sequential));
    await server.connect(transport);
    return { transport, server };
  }

  /** What this endpoint does for the transport of a modern server (see ModernEndpoint). */
  private endpointFor(server: ConnectableServer, sequential: boolean): ModernEndpoint {
    return {
      sequential,
      beforeServing: (message) => seedClientIdentity(server, 'params' in message ? message.params : undefined),
      listen: (request, format, signal) => this.listeners.listen(request, format, listenContextOf(server), signal),
    };
  }
}

/**
 * Servers bound to a modern revision (2026-07-28 and later), each still connected to its transport, idle between
 * requests. Making an McpServer (its tools, their schemas) and connecting and closing it cost more than
 * serving a small call; an instance serves one request at a time, so it is taken for a request and given
 * back once its reply is out, and the pool grows only to the number of requests in flight at once (and
 * keeps at most `maxIdle`).
 */
export class KeptServers<S> {
  private readonly idle = new Map<string, S[]>();

  constructor(private readonly maxIdle: number) {}

  /** Servers kept now, all revisions. */
  get size(): number {
    let count = 0;
    for (const list of this.idle.values()) count += list.length;
    return count;
  }

  take(revision: string): S | undefined {
    return this.idle.get(revision)?.pop();
  }

  /** False when the pool is full: the caller disposes of the server. */
  give(revision: string, server: S): boolean {
    let list = this.idle.get(revision);
    if (!list) this.idle.set(revision, (list = []));
    if (list.length >= this.maxIdle) return false;
    list.push(server);
    return true;
  }

  drain(): S[] {
    const all = [...this.idle.values()].flat();
    this.idle.clear();
    return all;
  }
}

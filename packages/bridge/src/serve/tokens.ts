import { createHash, timingSafeEqual } from 'node:crypto';

/**
 * The bearer tokens `--serve` asks for. Each presented token is compared with every configured one, all of
 * them every time, on SHA-256 digests (equal lengths) with timingSafeEqual: how long a refusal takes says
 * nothing about how close a guess was, nor which token it was close to.
 */
export class BearerTokens {
  private readonly digests: { principal: string; digest: Buffer }[];

  constructor(tokens: readonly { principal: string; token: string }[]) {
    this.digests = tokens.map(({ principal, token }) => ({ principal, digest: digest(token) }));
  }

  get required(): boolean {
    return this.digests.length > 0;
  }

  /** The principal whose token the Authorization header carries, or undefined. */
  principal(authorization: string | null): string | undefined {
    const match = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(authorization ?? '');
    const presented = digest(match?.[1] ?? '');
    let found: string | undefined;
    for (const { principal, digest: expected } of this.digests) {
      if (timingSafeEqual(presented, expected) && match) found ??= principal;
    }
    return found;
  }
}

function digest(token: string): Buffer {
  return createHash('sha256').update(token).digest();
}

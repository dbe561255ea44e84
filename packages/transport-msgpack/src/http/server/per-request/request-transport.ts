import { SUPPORTED_MODERN_PROTOCOL_VERSIONS } from '../../../jsonrpc/envelope.js';
import { INVALID_REQUEST } from '../../../jsonrpc/error-codes.js';
import { ExchangeTransport } from '../exchange/exchange-transport.js';
import { protocolVersionProblem } from '../exchange/era.js';
import type { Refusal } from '../exchange/responses.js';
import type { HttpMsgpackServerOptions, HttpRequestLike } from '../exchange/server-options.js';
import type { ModernEndpoint } from './modern-endpoint.js';
import { RequestPath } from './request-path.js';

/** Only reached without a modern version header, which the endpoint routes on: never, as it routes. */
const NOT_MODERN: Refusal = { status: 400, code: INVALID_REQUEST, message: 'Invalid Request: not a request of a modern revision' };

/**
 * The single-request transport of a modern revision (SDK v2's perRequestTransport.ts): one POST, no
 * session, made by an endpoint that routed the request here by its MCP-Protocol-Version header. With
 * `endpoint.sequential` it serves one request after another while the endpoint keeps its server.
 */
export class PerRequestTransport extends ExchangeTransport {
  constructor(options: HttpMsgpackServerOptions, endpoint: ModernEndpoint) {
    super({ ...options, sessionIdGenerator: undefined }, (dispatch) => new RequestPath(options.modernRevisions ?? SUPPORTED_MODERN_PROTOCOL_VERSIONS, endpoint, dispatch));
  }

  /** @internal A body of the session era under a modern version header (a batch, a response): that header is refused. */
  protected async admitSessionEra(req: HttpRequestLike): Promise<Refusal> {
    return protocolVersionProblem(req.headers) ?? NOT_MODERN;
  }
}

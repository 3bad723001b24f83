import type { RelayedAnswer, RelayedBody, RelayedEndpoint } from "../../../domain/relay/relay.answers";
import { bodyOf } from "../upstream.calls";
import type { UpstreamFetcher } from "../upstream.fetcher";

/**
 * A relayed endpoint (relay.answers.ts): the body the client sent goes upstream, and the upstream's 200 body comes
 * back as it is, on the path the Bavest SDKs post to (`/v0/...`, where Bavest serves them). Kept as reference data
 * (MDG_UPSTREAM_TTL_REFERENCE_S): news and sentiment change within the day, but no faster than an hour matters to a
 * client of these endpoints, and one upstream call an hour per body is what keeps the upstream's quota.
 */
export function relayFetcher(endpoint: RelayedEndpoint): UpstreamFetcher<RelayedBody, RelayedAnswer, RelayedAnswer> {
  return {
    path: `/v0/${endpoint}`,
    kind: "reference",
    request: (body) => bodyOf(body),
    transform: (doc) => doc,
  };
}

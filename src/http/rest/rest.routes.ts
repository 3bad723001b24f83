import { GENERATED_ROUTES } from "./rest.routes.generated";
import type { RouteEntry } from "./rest.route";

/**
 * The REST route table: every endpoint of both versions, the `RouteEntry` lists that src/http/rest/routes/*.routes.ts
 * export, gathered by `npm run generate` (rest.routes.generated.ts): an area's routes file is all it takes.
 */
export const ROUTES: readonly RouteEntry[] = GENERATED_ROUTES;

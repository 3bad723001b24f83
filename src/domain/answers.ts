import { ROW_STORE_AREA_ANSWERS, type AreaAnswers } from "./answers.generated";

/**
 * The answers port: what the resolvers ask for, by area (docs/architecture.md). Over a row store the domain services
 * answer (ROW_STORE_ANSWERS); over an upstream that answers documents, the upstream adapter's own
 * (src/sources/upstream/upstream.answers.ts). Every GraphQL field, and so every REST endpoint, is answered through
 * one of these. The composition root picks which. An area is the interface and row-store answers its
 * src/domain/<area>/<area>.answers.ts exports: `npm run generate` gathers them (answers.generated.ts).
 */
export type Answers = AreaAnswers;

/** Every area's answers computed from a row store's rows. */
export const ROW_STORE_ANSWERS: Answers = Object.freeze(ROW_STORE_AREA_ANSWERS);

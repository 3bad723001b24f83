/** One step of the PostgreSQL schema: applied once, in version order, and never changed once released. */
export interface Migration {
  version: number;
  name: string;
  sql: string;
}

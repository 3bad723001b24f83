// graphql-schema-linter (npm run lint:graphql) over the emitted SDL. Every built-in rule runs except the ones
// left out below, each with its reason; exceptions for single schema members sit in `ignore`, so anything added
// later is held to the full rule.
const ALL_RULES = [
  "arguments-have-descriptions",
  "defined-types-are-used",
  "deprecations-have-a-reason",
  "descriptions-are-capitalized",
  "enum-values-all-caps",
  "enum-values-have-descriptions",
  "enum-values-sorted-alphabetically",
  "fields-are-camel-cased",
  "fields-have-descriptions",
  "input-object-fields-sorted-alphabetically",
  "input-object-values-are-camel-cased",
  "input-object-values-have-descriptions",
  "interface-fields-sorted-alphabetically",
  "relay-connection-arguments-spec",
  "relay-connection-types-spec",
  "relay-page-info-spec",
  "type-fields-sorted-alphabetically",
  "types-are-capitalized",
  "types-have-descriptions",
];

const LEFT_OUT = {
  // The lists and the dividend calendar are keyset pages, `{results | dividends, nextCursor}`, the shape REST
  // answers too (docs/contract.md section 1, "lists"); they are not Relay connections, so there is no PageInfo.
  // The relay-connection-* rules stay on: they only judge types named *Connection, of which there are none.
  "relay-page-info-spec": "keyset pages, not Relay connections",
};

module.exports = {
  schemaPaths: ["schema/schema.graphql"],
  rules: ALL_RULES.filter((rule) => !(rule in LEFT_OUT)),
  ignore: {
    // These enum values are the strings REST answers and accepts (search's `type`, the dividend estimate's `status`,
    // the search filter `types`) and that GraphQL clients already send and compare against; upper-casing them would
    // make the two doors disagree and break every existing GraphQL query that names them. Any new enum is ALL_CAPS.
    "enum-values-all-caps": ["SecurityType", "DividendStatus"],
  },
};

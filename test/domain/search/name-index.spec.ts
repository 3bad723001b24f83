import { NameIndex } from "../../../src/domain/search/search.names";

const NAMES = [
  "Alpha Holdings",
  "Alpho Capital",
  "Alphabetic Systems",
  "Beta Industries",
  "Gamma Alphanumeric Partners",
  "Betta Foods",
];
const found = (index: NameIndex, query: string) => index.search(query, 20).map((m) => NAMES[m.doc]);

describe("NameIndex typo tolerance", () => {
  const index = new NameIndex(NAMES);

  it("matches a word found as typed as typed, without its one-edit neighbours", () => {
    expect(found(index, "alpha holdings")).toEqual(["Alpha Holdings"]);
    expect(found(index, "beta")).toEqual(["Beta Industries"]);
  });

  it("tolerates one edit in a word that is no name's word, a transposition included", () => {
    expect(found(index, "alhpo capital")).toEqual(["Alpho Capital"]);
    expect(found(index, "bteta")).toEqual(expect.arrayContaining(["Beta Industries", "Betta Foods"]));
  });

  it("tolerates two edits from nine letters, and finds them among terms of another length", () => {
    expect(found(index, "alphanumerc")).toEqual(["Gamma Alphanumeric Partners"]);
    expect(found(index, "alphabettic systms")).toEqual(["Alphabetic Systems"]);
  });

  it("matches three letters exactly or as a prefix, and tolerates one edit from four", () => {
    expect(found(index, "bet")).toEqual(expect.arrayContaining(["Beta Industries", "Betta Foods"]));
    expect(found(index, "gama")).toEqual(["Gamma Alphanumeric Partners"]);
  });
});

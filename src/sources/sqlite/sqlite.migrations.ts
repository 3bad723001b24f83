/**
 * Schema migrations of the embedded store, applied in order at start-up.
 * `PRAGMA user_version` records how many have run; a migration never changes
 * once released, a new one is appended instead.
 *
 * Conventions: days are `YYYY-MM-DD` text, instants are Unix seconds,
 * percentages are percent numbers (12.5 means 12.5 %), money is a number
 * beside an ISO 4217 currency.
 */
export const MIGRATIONS: readonly string[] = [
  /* 1: the sample data model */ `
  CREATE TABLE meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
  );

  CREATE TABLE exchanges (
    code     TEXT PRIMARY KEY,           -- e.g. XNAS, XNYS, XFRA, CRYPTO, FOREX
    name     TEXT NOT NULL,
    country  TEXT,                       -- ISO 3166 alpha-2
    currency TEXT NOT NULL,              -- ISO 4217 of its listings
    timezone TEXT NOT NULL
  );

  -- One row per security (a company, an ETF, a fund, a crypto asset, a forex pair).
  CREATE TABLE securities (
    id                  INTEGER PRIMARY KEY,
    type                TEXT NOT NULL CHECK (type IN ('stock','etf','fund','crypto','forex')),
    name                TEXT NOT NULL,
    isin                TEXT UNIQUE,
    cusip               TEXT,
    country             TEXT,            -- ISO 3166 alpha-2 of domicile
    sector              TEXT,
    industry            TEXT,
    currency            TEXT NOT NULL,   -- reporting / base currency
    market_cap          REAL,            -- in currency
    shares_outstanding  REAL,
    is_adr              INTEGER NOT NULL DEFAULT 0,
    is_active           INTEGER NOT NULL DEFAULT 1,
    description         TEXT,
    website             TEXT,
    ipo_date            TEXT,            -- or inception / launch day
    next_earnings_date  TEXT,            -- stocks only
    rank                INTEGER          -- 1 = largest of its type by market cap
  );
  CREATE INDEX securities_type_id ON securities(type, id);
  CREATE INDEX securities_type_rank ON securities(type, rank);

  -- A security trades as one or more listings; each listing has its own symbol and currency.
  -- Crypto assets list as pairs (BTC-USD, BTC-EUR); forex pairs as EURUSD.
  CREATE TABLE listings (
    id          INTEGER PRIMARY KEY,
    security_id INTEGER NOT NULL REFERENCES securities(id),
    symbol      TEXT NOT NULL UNIQUE,
    exchange    TEXT NOT NULL REFERENCES exchanges(code),
    currency    TEXT NOT NULL,
    is_primary  INTEGER NOT NULL DEFAULT 0,
    quote_currency TEXT                  -- crypto and forex: the counter currency
  );
  CREATE INDEX listings_security ON listings(security_id);

  -- Latest quote of every listing. The moving averages and average volume are
  -- consistent with daily_bars where the listing has history.
  CREATE TABLE quotes (
    listing_id     INTEGER PRIMARY KEY REFERENCES listings(id),
    t              INTEGER NOT NULL,     -- Unix seconds of the quote
    c              REAL NOT NULL,
    o              REAL NOT NULL,
    h              REAL NOT NULL,
    l              REAL NOT NULL,
    pc             REAL NOT NULL,        -- previous close
    v              REAL NOT NULL,
    ma50           REAL,
    ma200          REAL,
    avg_volume     REAL
  );

  -- Daily OHLCV; t is the Unix second of the day's 00:00 UTC.
  CREATE TABLE daily_bars (
    listing_id INTEGER NOT NULL,
    t          INTEGER NOT NULL,
    o REAL NOT NULL, h REAL NOT NULL, l REAL NOT NULL, c REAL NOT NULL, v REAL NOT NULL,
    PRIMARY KEY (listing_id, t)
  ) WITHOUT ROWID;

  -- 5-minute bars for the most recent trading days of the largest listings.
  CREATE TABLE intraday_bars (
    listing_id INTEGER NOT NULL,
    t          INTEGER NOT NULL,
    o REAL NOT NULL, h REAL NOT NULL, l REAL NOT NULL, c REAL NOT NULL, v REAL NOT NULL,
    PRIMARY KEY (listing_id, t)
  ) WITHOUT ROWID;

  -- Daily FX: units of currency per 1 USD (USD itself is implicit 1).
  CREATE TABLE fx_daily (
    currency TEXT NOT NULL,
    day      TEXT NOT NULL,
    per_usd  REAL NOT NULL,
    PRIMARY KEY (currency, day)
  ) WITHOUT ROWID;

  CREATE TABLE etf_profiles (
    security_id         INTEGER PRIMARY KEY REFERENCES securities(id),
    issuer              TEXT NOT NULL,
    asset_class         TEXT NOT NULL,   -- Equity, Fixed Income, Commodity, Multi-Asset, Real Estate
    aum                 REAL NOT NULL,
    nav                 REAL NOT NULL,
    nav_currency        TEXT NOT NULL,
    expense_ratio       REAL NOT NULL,   -- percent
    inception_date      TEXT NOT NULL,
    domicile            TEXT NOT NULL,
    replication         TEXT NOT NULL,   -- Physical (full), Physical (sampling), Synthetic
    distribution_policy TEXT NOT NULL,   -- Distributing, Accumulating
    benchmark           TEXT NOT NULL,
    holdings_count      INTEGER NOT NULL,
    holdings_date       TEXT NOT NULL
  );

  -- Weights in percent, summing to 100 per ETF.
  CREATE TABLE etf_holdings (
    etf_id              INTEGER NOT NULL REFERENCES securities(id),
    position            INTEGER NOT NULL,
    holding_security_id INTEGER REFERENCES securities(id),
    symbol              TEXT,
    name                TEXT NOT NULL,
    isin                TEXT,
    cusip               TEXT,
    sector              TEXT,
    country             TEXT,
    shares              REAL NOT NULL,
    weight              REAL NOT NULL,
    market_value        REAL NOT NULL,
    PRIMARY KEY (etf_id, position)
  ) WITHOUT ROWID;

  -- Derived from etf_holdings by the loader; kept to answer exposures in one lookup.
  CREATE TABLE etf_sector_exposure (
    etf_id INTEGER NOT NULL, sector TEXT NOT NULL, weight REAL NOT NULL,
    PRIMARY KEY (etf_id, sector)
  ) WITHOUT ROWID;
  CREATE TABLE etf_country_exposure (
    etf_id INTEGER NOT NULL, country TEXT NOT NULL, weight REAL NOT NULL,
    PRIMARY KEY (etf_id, country)
  ) WITHOUT ROWID;

  CREATE TABLE fund_profiles (
    security_id         INTEGER PRIMARY KEY REFERENCES securities(id),
    fund_company        TEXT NOT NULL,
    category            TEXT NOT NULL,
    asset_class         TEXT NOT NULL,
    aum                 REAL NOT NULL,
    nav                 REAL NOT NULL,
    nav_currency        TEXT NOT NULL,
    ongoing_charge      REAL NOT NULL,   -- percent
    entry_charge        REAL NOT NULL,   -- percent
    inception_date      TEXT NOT NULL,
    domicile            TEXT NOT NULL,
    benchmark           TEXT NOT NULL,
    risk_class          INTEGER NOT NULL, -- SRI 1..7
    distribution_policy TEXT NOT NULL,
    min_investment      REAL NOT NULL,
    holdings_count      INTEGER NOT NULL,
    holdings_date       TEXT NOT NULL
  );
  CREATE TABLE fund_holdings (
    fund_id             INTEGER NOT NULL REFERENCES securities(id),
    position            INTEGER NOT NULL,
    holding_security_id INTEGER REFERENCES securities(id),
    symbol              TEXT,
    name                TEXT NOT NULL,
    isin                TEXT,
    asset_class         TEXT NOT NULL,   -- Equity, Bond, Cash, Other
    sector              TEXT,
    country             TEXT,
    weight              REAL NOT NULL,
    market_value        REAL NOT NULL,
    PRIMARY KEY (fund_id, position)
  ) WITHOUT ROWID;
  CREATE TABLE fund_sector_exposure (
    fund_id INTEGER NOT NULL, sector TEXT NOT NULL, weight REAL NOT NULL,
    PRIMARY KEY (fund_id, sector)
  ) WITHOUT ROWID;
  CREATE TABLE fund_country_exposure (
    fund_id INTEGER NOT NULL, country TEXT NOT NULL, weight REAL NOT NULL,
    PRIMARY KEY (fund_id, country)
  ) WITHOUT ROWID;
  -- Asset classes Equity, Bonds, Cash, Other; weights sum to 100 per fund.
  CREATE TABLE fund_allocation (
    fund_id INTEGER NOT NULL, asset_class TEXT NOT NULL, weight REAL NOT NULL,
    PRIMARY KEY (fund_id, asset_class)
  ) WITHOUT ROWID;

  -- Quarterly income, balance sheet and cash flow in the security's currency.
  CREATE TABLE quarterly_financials (
    security_id          INTEGER NOT NULL REFERENCES securities(id),
    period_end           TEXT NOT NULL,
    fiscal_year          INTEGER NOT NULL,
    fiscal_quarter       INTEGER NOT NULL,
    reported_date        TEXT NOT NULL,
    currency             TEXT NOT NULL,
    revenue              REAL NOT NULL,
    cost_of_revenue      REAL NOT NULL,
    gross_profit         REAL NOT NULL,
    operating_income     REAL NOT NULL,
    net_income           REAL NOT NULL,
    eps                  REAL NOT NULL,
    total_assets         REAL NOT NULL,
    total_liabilities    REAL NOT NULL,
    total_equity         REAL NOT NULL,
    cash                 REAL NOT NULL,
    total_debt           REAL NOT NULL,
    shares_outstanding   REAL NOT NULL,
    operating_cash_flow  REAL NOT NULL,
    capex                REAL NOT NULL,  -- negative: cash spent
    free_cash_flow       REAL NOT NULL,
    dividends_paid       REAL NOT NULL,  -- negative: cash paid out
    PRIMARY KEY (security_id, period_end)
  ) WITHOUT ROWID;

  -- Paid and announced dividends. ex_date is the contract's "date".
  CREATE TABLE dividends (
    security_id      INTEGER NOT NULL REFERENCES securities(id),
    ex_date          TEXT NOT NULL,
    record_date      TEXT,
    pay_date         TEXT,
    declaration_date TEXT,
    amount           REAL NOT NULL,      -- as paid, per share at the time
    adjusted_amount  REAL NOT NULL,      -- split-adjusted to today's shares
    currency         TEXT NOT NULL,
    frequency        INTEGER NOT NULL,   -- payments per year: 1, 2, 4, 12
    PRIMARY KEY (security_id, ex_date)
  ) WITHOUT ROWID;
  CREATE INDEX dividends_ex_date ON dividends(ex_date);

  CREATE TABLE splits (
    security_id INTEGER NOT NULL REFERENCES securities(id),
    day         TEXT NOT NULL,
    numerator   REAL NOT NULL,           -- 4-for-1: numerator 4, denominator 1
    denominator REAL NOT NULL,
    PRIMARY KEY (security_id, day)
  ) WITHOUT ROWID;

  CREATE TABLE index_constituents (
    index_symbol  TEXT NOT NULL,
    index_name    TEXT NOT NULL,
    security_id   INTEGER NOT NULL REFERENCES securities(id),
    weight        REAL NOT NULL,
    PRIMARY KEY (index_symbol, security_id)
  ) WITHOUT ROWID;

  CREATE TABLE api_keys (
    id            TEXT PRIMARY KEY,       -- public identifier, safe to print
    name          TEXT NOT NULL,
    hash          TEXT NOT NULL UNIQUE,   -- sha256 of the secret, hex
    scopes        TEXT NOT NULL,          -- space-separated
    created_at    INTEGER NOT NULL,
    expires_at    INTEGER,
    revoked_at    INTEGER,
    rate_per_minute INTEGER NOT NULL,
    daily_quota   INTEGER NOT NULL
  );
  `,
  /* 2: trailing-twelve-month EPS and net income kept with the security, so a quote needs no second query */ `
  ALTER TABLE securities ADD COLUMN eps_ttm REAL;         -- sum of the latest four quarters' EPS; NULL with fewer
  ALTER TABLE securities ADD COLUMN net_income_ttm REAL;  -- the same for net income, in the reporting currency
  UPDATE securities SET
    eps_ttm = (SELECT sum(eps) FROM (SELECT eps FROM quarterly_financials f
                 WHERE f.security_id = securities.id ORDER BY f.period_end DESC LIMIT 4)),
    net_income_ttm = (SELECT sum(net_income) FROM (SELECT net_income FROM quarterly_financials f
                 WHERE f.security_id = securities.id ORDER BY f.period_end DESC LIMIT 4))
  WHERE (SELECT count(*) FROM quarterly_financials f WHERE f.security_id = securities.id) >= 4;
  `,
  /* 3: lookups by CUSIP and WKN (docs/contract.md section 1). A German security's WKN is part of its ISIN (DE 000
        WKN check), filled here for stores built before; a foreign security traded in Germany has a WKN of its own,
        which a loader (or the sample generator) writes. Partial indexes: most securities have neither. */ `
  ALTER TABLE securities ADD COLUMN wkn TEXT;
  UPDATE securities SET wkn = substr(isin, 6, 6) WHERE substr(isin, 1, 2) = 'DE';
  CREATE INDEX securities_wkn ON securities(wkn) WHERE wkn IS NOT NULL;
  CREATE INDEX securities_cusip ON securities(cusip) WHERE cusip IS NOT NULL;
  `,
  /* 4: the securities an import added or changed, in commit order, so that a running service patches its search
        index with just those (sqlite.changes.ts). PostgreSQL's table of the same name (postgres.changes.ts) is
        filled by triggers and has these columns too (the sample copies across, empty); here the import writes it
        in the transaction of its batch and prunes it to its last rows, so versions never repeat. security_id
        NULL: every security. */ `
  CREATE TABLE mdg_change_log (
    version     INTEGER PRIMARY KEY,
    security_id INTEGER
  );
  `,
  /* 5: the SEC's Central Index Key of a US registrant, by which EDGAR's company files are named (CIK##########.json);
        the SEC provider fetches the filings of the companies that have one. Partial index: most securities have
        none. */ `
  ALTER TABLE securities ADD COLUMN cik INTEGER;
  CREATE INDEX securities_cik ON securities(cik) WHERE cik IS NOT NULL;
  `,
  /* 6: a stock's peers are the stocks of its sector (sqlite.source.ts getStockPeers): read by sector, never all. */ `
  CREATE INDEX securities_sector ON securities(sector, type) WHERE sector IS NOT NULL;
  `,
  /* 7: the earnings calendar reads reported quarters and next earnings dates by day (getEarningsCalendar). */ `
  CREATE INDEX quarterly_financials_reported ON quarterly_financials(reported_date);
  CREATE INDEX securities_next_earnings ON securities(next_earnings_date) WHERE next_earnings_date IS NOT NULL;
  `,
  /* 8: balance-sheet and cash-flow details of a quarter (OPTIONAL_FINANCIAL_FIGURES), which stock/financials answers;
        NULL where a report has none, and in rows stored before. */ `
  ALTER TABLE quarterly_financials ADD COLUMN current_assets REAL;
  ALTER TABLE quarterly_financials ADD COLUMN current_liabilities REAL;
  ALTER TABLE quarterly_financials ADD COLUMN inventory REAL;
  ALTER TABLE quarterly_financials ADD COLUMN accounts_receivable REAL;
  ALTER TABLE quarterly_financials ADD COLUMN accounts_payable REAL;
  ALTER TABLE quarterly_financials ADD COLUMN depreciation_amortization REAL;
  ALTER TABLE quarterly_financials ADD COLUMN stock_based_compensation REAL;
  `,
  /* 9: initial public offerings, which calender/ipo answers (getIpoCalendar): the security offered and the day it
        lists (or was to list), where, how many shares at what price (in `currency`), and whether the offering is
        still expected, priced or withdrawn. An offering not yet priced holds its expected price (the middle of its
        range) or none; one withdrawn may hold neither. Read by day through the index, never whole. */ `
  CREATE TABLE ipos (
    security_id    INTEGER NOT NULL REFERENCES securities(id),
    day            TEXT NOT NULL,           -- YYYY-MM-DD: the listing day, expected or actual
    exchange       TEXT NOT NULL,
    shares_offered REAL,
    offer_price    REAL,
    currency       TEXT NOT NULL,           -- of offer_price: the listing's
    status         TEXT NOT NULL CHECK (status IN ('expected', 'priced', 'withdrawn')),
    PRIMARY KEY (security_id, day)
  ) WITHOUT ROWID;
  CREATE INDEX ipos_day ON ipos(day, security_id);
  `,
];

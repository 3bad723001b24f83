/**
 * GICS-like classification: the 11 sectors with a few industries each. Each
 * industry carries the words companies in it tend to put in their names and a
 * phrase for the generated description, which keeps names and sectors
 * believable together ("… Therapeutics Inc." is in Health Care).
 */

export interface IndustryDef {
  name: string;
  nameWords: readonly string[];
  /** Completes "The company …". */
  activity: string;
}

export interface SectorDef {
  name: string;
  /** Share of listed companies in this sector. */
  weight: number;
  /** Typical price/sales ratio, drives revenue from market cap. */
  priceToSales: number;
  /** Typical gross margin, 0..1. */
  grossMargin: number;
  /** Probability that a large company in the sector pays a dividend. */
  dividendPropensity: number;
  industries: readonly IndustryDef[];
}

export const SECTORS: readonly SectorDef[] = [
  {
    name: "Information Technology",
    weight: 14,
    priceToSales: 6,
    grossMargin: 0.6,
    dividendPropensity: 0.25,
    industries: [
      {
        name: "Software",
        nameWords: ["Software", "Systems", "Digital", "Cloud", "Data"],
        activity: "develops business software and cloud services",
      },
      {
        name: "Semiconductors",
        nameWords: ["Semiconductor", "Micro", "Silicon", "Devices"],
        activity: "designs and manufactures semiconductors",
      },
      {
        name: "IT Services",
        nameWords: ["Technologies", "Consulting", "Solutions", "Networks"],
        activity: "provides IT consulting and outsourcing services",
      },
      {
        name: "Technology Hardware",
        nameWords: ["Electronics", "Instruments", "Devices", "Computing"],
        activity: "makes computers, storage and peripherals",
      },
      {
        name: "Communications Equipment",
        nameWords: ["Networks", "Communications", "Photonics"],
        activity: "supplies networking and communications equipment",
      },
    ],
  },
  {
    name: "Health Care",
    weight: 12,
    priceToSales: 4,
    grossMargin: 0.55,
    dividendPropensity: 0.3,
    industries: [
      {
        name: "Pharmaceuticals",
        nameWords: ["Pharmaceuticals", "Pharma", "Laboratories"],
        activity: "develops and markets prescription medicines",
      },
      {
        name: "Biotechnology",
        nameWords: ["Therapeutics", "Biosciences", "Bio", "Genomics"],
        activity: "researches biologic therapies",
      },
      {
        name: "Health Care Equipment",
        nameWords: ["Medical", "Surgical", "Diagnostics", "Instruments"],
        activity: "makes medical devices and diagnostic equipment",
      },
      {
        name: "Health Care Providers",
        nameWords: ["Health", "Care", "Clinics"],
        activity: "operates hospitals, clinics and care services",
      },
      {
        name: "Life Sciences Tools",
        nameWords: ["Scientific", "Analytics", "Life Sciences"],
        activity: "supplies laboratory instruments and research services",
      },
    ],
  },
  {
    name: "Financials",
    weight: 14,
    priceToSales: 2.5,
    grossMargin: 0.7,
    dividendPropensity: 0.7,
    industries: [
      {
        name: "Banks",
        nameWords: ["Bank", "Bancorp", "Financial"],
        activity: "provides retail and commercial banking",
      },
      {
        name: "Insurance",
        nameWords: ["Insurance", "Assurance", "Re"],
        activity: "underwrites property, casualty and life insurance",
      },
      {
        name: "Capital Markets",
        nameWords: ["Capital", "Investments", "Securities", "Partners"],
        activity: "offers asset management and brokerage services",
      },
      {
        name: "Financial Services",
        nameWords: ["Financial", "Payments", "Credit"],
        activity: "provides payment processing and consumer credit",
      },
    ],
  },
  {
    name: "Industrials",
    weight: 15,
    priceToSales: 1.8,
    grossMargin: 0.3,
    dividendPropensity: 0.55,
    industries: [
      {
        name: "Aerospace & Defense",
        nameWords: ["Aerospace", "Defense", "Aviation"],
        activity: "builds aircraft components and defense systems",
      },
      {
        name: "Machinery",
        nameWords: ["Machinery", "Engineering", "Industries", "Dynamics"],
        activity: "manufactures industrial machinery",
      },
      {
        name: "Construction & Engineering",
        nameWords: ["Construction", "Building", "Infrastructure"],
        activity: "designs and builds infrastructure projects",
      },
      {
        name: "Transportation",
        nameWords: ["Logistics", "Freight", "Airlines", "Transport"],
        activity: "moves freight and passengers",
      },
      {
        name: "Electrical Equipment",
        nameWords: ["Electric", "Power Systems", "Controls"],
        activity: "makes electrical equipment and automation systems",
      },
      {
        name: "Commercial Services",
        nameWords: ["Services", "Staffing", "Environmental"],
        activity: "provides business and environmental services",
      },
    ],
  },
  {
    name: "Consumer Discretionary",
    weight: 11,
    priceToSales: 1.5,
    grossMargin: 0.4,
    dividendPropensity: 0.4,
    industries: [
      { name: "Automobiles", nameWords: ["Motors", "Automotive", "Mobility"], activity: "designs and builds vehicles" },
      {
        name: "Hotels, Restaurants & Leisure",
        nameWords: ["Hotels", "Resorts", "Restaurants", "Leisure"],
        activity: "operates hotels, restaurants and leisure venues",
      },
      {
        name: "Specialty Retail",
        nameWords: ["Stores", "Retail", "Outfitters"],
        activity: "runs specialty retail stores and online shops",
      },
      {
        name: "Textiles & Apparel",
        nameWords: ["Apparel", "Fashion", "Brands"],
        activity: "designs apparel, footwear and accessories",
      },
      {
        name: "Household Durables",
        nameWords: ["Homes", "Furnishings", "Appliances"],
        activity: "builds homes and makes household durables",
      },
    ],
  },
  {
    name: "Consumer Staples",
    weight: 6,
    priceToSales: 1.4,
    grossMargin: 0.35,
    dividendPropensity: 0.8,
    industries: [
      { name: "Food Products", nameWords: ["Foods", "Nutrition", "Farms"], activity: "produces packaged foods" },
      {
        name: "Beverages",
        nameWords: ["Beverages", "Brewing", "Spirits"],
        activity: "brews and distributes beverages",
      },
      {
        name: "Household Products",
        nameWords: ["Consumer", "Household", "Brands"],
        activity: "makes household and personal care products",
      },
      {
        name: "Consumer Staples Retail",
        nameWords: ["Markets", "Grocers", "Wholesale"],
        activity: "operates supermarkets and wholesale clubs",
      },
    ],
  },
  {
    name: "Energy",
    weight: 5,
    priceToSales: 1.1,
    grossMargin: 0.35,
    dividendPropensity: 0.75,
    industries: [
      {
        name: "Oil, Gas & Consumable Fuels",
        nameWords: ["Petroleum", "Oil & Gas", "Energy", "Resources"],
        activity: "explores for and produces oil and natural gas",
      },
      {
        name: "Energy Equipment & Services",
        nameWords: ["Drilling", "Offshore", "Energy Services"],
        activity: "provides drilling and oilfield services",
      },
    ],
  },
  {
    name: "Materials",
    weight: 8,
    priceToSales: 1.6,
    grossMargin: 0.3,
    dividendPropensity: 0.6,
    industries: [
      {
        name: "Chemicals",
        nameWords: ["Chemicals", "Chemical", "Materials"],
        activity: "produces specialty and commodity chemicals",
      },
      {
        name: "Metals & Mining",
        nameWords: ["Mining", "Minerals", "Metals", "Gold"],
        activity: "mines and processes metals and minerals",
      },
      {
        name: "Construction Materials",
        nameWords: ["Cement", "Aggregates", "Materials"],
        activity: "produces cement and aggregates",
      },
      {
        name: "Containers & Packaging",
        nameWords: ["Packaging", "Containers", "Paper"],
        activity: "makes packaging and paper products",
      },
    ],
  },
  {
    name: "Communication Services",
    weight: 5,
    priceToSales: 3,
    grossMargin: 0.5,
    dividendPropensity: 0.4,
    industries: [
      {
        name: "Telecommunications",
        nameWords: ["Telecom", "Communications", "Wireless"],
        activity: "operates mobile and fixed-line networks",
      },
      {
        name: "Media",
        nameWords: ["Media", "Broadcasting", "Publishing"],
        activity: "publishes and broadcasts news and entertainment",
      },
      {
        name: "Interactive Media",
        nameWords: ["Interactive", "Online", "Social"],
        activity: "runs online platforms and search services",
      },
      {
        name: "Entertainment",
        nameWords: ["Entertainment", "Studios", "Games"],
        activity: "produces films, music and video games",
      },
    ],
  },
  {
    name: "Utilities",
    weight: 3,
    priceToSales: 2.2,
    grossMargin: 0.4,
    dividendPropensity: 0.9,
    industries: [
      {
        name: "Electric Utilities",
        nameWords: ["Power", "Electric", "Energy"],
        activity: "generates and distributes electricity",
      },
      { name: "Gas Utilities", nameWords: ["Gas", "Utilities"], activity: "distributes natural gas" },
      {
        name: "Water Utilities",
        nameWords: ["Water", "Utilities"],
        activity: "supplies water and wastewater services",
      },
      {
        name: "Renewable Electricity",
        nameWords: ["Renewables", "Solar", "Wind"],
        activity: "develops wind and solar power plants",
      },
    ],
  },
  {
    name: "Real Estate",
    weight: 7,
    priceToSales: 5,
    grossMargin: 0.6,
    dividendPropensity: 0.85,
    industries: [
      {
        name: "Equity REITs",
        nameWords: ["Realty", "Properties", "REIT"],
        activity: "owns and leases commercial real estate",
      },
      {
        name: "Real Estate Management & Development",
        nameWords: ["Land", "Estates", "Development"],
        activity: "develops and manages property",
      },
    ],
  },
];

export const SECTOR_WEIGHTS: readonly number[] = SECTORS.map((s) => s.weight);

export function sectorByName(name: string): SectorDef {
  const s = SECTORS.find((x) => x.name === name);
  if (!s) throw new Error(`Unknown sector ${name}`);
  return s;
}

import { addDays } from '../shared/calendar.js';

/**
 * Demo master data for a distributor of agro products in Bangladesh: deterministic (the same
 * rows and ids on every fresh database), realistic in size (hundreds of customers and products)
 * and dated around the day it is generated, so licences are valid, expiring and expired "now".
 */

/** A small seeded PRNG (mulberry32): the same demo data on every run. */
const randomSource = (seed: number) => {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
};

export const LOCATIONS = [
  { code: 'DHK', name: 'Dhaka Central Depot', active: true },
  { code: 'CTG', name: 'Chattogram Depot', active: true },
  { code: 'KHL', name: 'Khulna Depot', active: true },
  { code: 'RAJ', name: 'Rajshahi Depot', active: true },
  { code: 'BOG', name: 'Bogura Depot', active: true },
  { code: 'SYL', name: 'Sylhet Depot', active: true },
  { code: 'RNG', name: 'Rangpur Depot (closed)', active: false },
];

/** Bangladesh's financial year runs July to June; years from two back to one ahead of `today` (a calendar date). */
export const financialYears = (today: Date) => {
  const currentStart = today.getUTCMonth() >= 6 ? today.getUTCFullYear() : today.getUTCFullYear() - 1;
  return [-2, -1, 0, 1].map((offset) => {
    const start = currentStart + offset;
    return {
      code: `FY${start}-${String(start + 1).slice(2)}`,
      startDate: new Date(Date.UTC(start, 6, 1)),
      endDate: new Date(Date.UTC(start + 1, 5, 30)),
      active: true,
    };
  });
};

const FAMILY_NAMES = [
  'Rahman',
  'Karim',
  'Hossain',
  'Akter',
  'Chowdhury',
  'Islam',
  'Uddin',
  'Mia',
  'Sarkar',
  'Khan',
  'Ahmed',
  'Talukder',
  'Bhuiyan',
  'Sikder',
  'Mollah',
  'Patwary',
  'Majumder',
  'Howlader',
  'Biswas',
  'Das',
  'Saha',
  'Paul',
  'Roy',
  'Ghosh',
  'Mondal',
  'Sheikh',
  'Munshi',
  'Khandaker',
];
const BUSINESS_KINDS = [
  'Traders',
  'Enterprise',
  'Agro Centre',
  'Krishi Bhandar',
  'Store',
  '& Sons',
  'Distribution',
  'Seed House',
  'Trading Co.',
  'Agro Services',
  'Beej Bhandar',
  'Farm Supplies',
];
const TOWNS = [
  'Bogura',
  'Jashore',
  'Kushtia',
  'Dinajpur',
  'Mymensingh',
  'Cumilla',
  'Faridpur',
  'Pabna',
  'Tangail',
  'Naogaon',
  'Jamalpur',
  'Barishal',
  'Natore',
  'Chuadanga',
  'Sirajganj',
  'Gaibandha',
  'Narsingdi',
];

export const customers = (count = 320) => {
  const random = randomSource(11);
  const names = new Set<string>();
  while (names.size < count) {
    const pick = <T>(list: T[]) => list[Math.floor(random() * list.length)]!;
    names.add(`${pick(FAMILY_NAMES)} ${pick(BUSINESS_KINDS)}, ${pick(TOWNS)}`);
  }
  return [...names].map((name, index) => ({
    code: `C${String(index + 1).padStart(5, '0')}`,
    name,
    // Every 40th customer has stopped trading: present, but not offered or accepted.
    active: (index + 1) % 40 !== 0,
  }));
};

interface ProductFamily {
  ingredients: string[];
  formulations: string[];
  packs: string[];
  requiresLicence: boolean;
}

const PRODUCT_FAMILIES: ProductFamily[] = [
  {
    ingredients: [
      'Cypermethrin',
      'Chlorpyrifos',
      'Imidacloprid',
      'Lambda-cyhalothrin',
      'Emamectin Benzoate',
      'Thiamethoxam',
      'Fipronil',
      'Acetamiprid',
      'Abamectin',
      'Carbofuran',
    ],
    formulations: ['10 EC', '20 SL', '5 WDG', '3 GR', '25 WG'],
    packs: ['50 ml', '100 ml', '250 ml', '500 ml', '1 L'],
    requiresLicence: true,
  },
  {
    ingredients: [
      'Mancozeb',
      'Carbendazim',
      'Tebuconazole',
      'Propiconazole',
      'Azoxystrobin',
      'Hexaconazole',
      'Metalaxyl',
      'Copper Oxychloride',
    ],
    formulations: ['80 WP', '50 WP', '25 EC', '5 SC', '72 WP'],
    packs: ['100 g', '500 g', '1 kg'],
    requiresLicence: true,
  },
  {
    ingredients: ['Glyphosate', 'Pretilachlor', 'Butachlor', '2,4-D Amine', 'Bispyribac Sodium', 'Pendimethalin'],
    formulations: ['41 SL', '50 EC', '5 GR', '10 SC'],
    packs: ['100 ml', '500 ml', '1 L', '5 L'],
    requiresLicence: true,
  },
  {
    ingredients: ['Urea', 'TSP', 'MoP', 'DAP', 'Gypsum', 'Zinc Sulphate', 'Boric Acid', 'Magnesium Sulphate'],
    formulations: ['Granular', 'Prilled', 'Powder', 'Mono'],
    packs: ['1 kg', '5 kg', '25 kg', '50 kg'],
    requiresLicence: false,
  },
  {
    ingredients: ['Hybrid Rice', 'Maize', 'Jute', 'Mustard', 'Tomato', 'Brinjal', 'Chilli', 'Potato'],
    formulations: ['BRRI dhan 28', 'Hybrid 900M', 'O-9897', 'BARI-14', 'Ratan', 'Shingnath', 'Bijoy'],
    packs: ['250 g', '1 kg', '5 kg'],
    requiresLicence: false,
  },
];

const BRANDS = ['Agro', 'Krishi', 'Shakti', 'Fasal', 'Sabuj', 'Dhan', 'Nitya', 'Prottoy', 'Ripon', 'Bijoy'];

/**
 * The first six products are the licence showcase, in this order (ids 1-6 on a fresh
 * database): unlimited licence, small quota, licence expiring soon, licence expired, licence
 * required but never issued, no licence needed.
 */
export const SHOWCASE_PRODUCTS = [
  { name: 'Cypermethrin 10 EC (Ripcord)', requiresLicence: true, packs: ['100 ml', '500 ml', '1 L'] },
  { name: 'Carbofuran 5 GR (Furadan)', requiresLicence: true, packs: ['1 kg', '5 kg'] },
  { name: 'Emamectin Benzoate 5 SG (Proclaim)', requiresLicence: true, packs: ['50 g', '100 g'] },
  { name: 'Chlorpyrifos 20 EC (Dursban)', requiresLicence: true, packs: ['100 ml', '500 ml'] },
  { name: 'Fipronil 3 GR (Regent)', requiresLicence: true, packs: ['1 kg', '10 kg'] },
  { name: 'Urea 46% N (Granular)', requiresLicence: false, packs: ['25 kg', '50 kg'] },
];

export const products = (count = 260) => {
  const random = randomSource(23);
  const list = SHOWCASE_PRODUCTS.map((product) => ({ ...product, active: true }));
  const names = new Set(list.map((product) => product.name));
  while (list.length < count) {
    const family = PRODUCT_FAMILIES[Math.floor(random() * PRODUCT_FAMILIES.length)]!;
    const ingredient = family.ingredients[Math.floor(random() * family.ingredients.length)]!;
    const formulation = family.formulations[Math.floor(random() * family.formulations.length)]!;
    const brand = BRANDS[Math.floor(random() * BRANDS.length)]!;
    const name = `${ingredient} ${formulation} (${brand})`;
    if (names.has(name)) continue;
    names.add(name);
    const packCount = 1 + Math.floor(random() * 3);
    const start = Math.floor(random() * (family.packs.length - packCount + 1));
    list.push({
      name,
      requiresLicence: family.requiresLicence,
      packs: family.packs.slice(start, start + packCount),
      // Every 50th product is discontinued.
      active: (list.length + 1) % 50 !== 0,
    });
  }
  return list.map((product, index) => ({ ...product, code: `P${String(index + 1).padStart(5, '0')}` }));
};

export interface DemoLicence {
  productIndex: number;
  licenceNo: string;
  validFrom: Date;
  validTo: Date;
  /** null: unlimited. */
  licensedQuantity: number | null;
}

/** Licences for the licensed products, around `day` (a calendar date); the showcase products get their case. */
export const licences = (productList: ReturnType<typeof products>, day: Date): DemoLicence[] => {
  const random = randomSource(37);
  const longAgo = addDays(day, -700);
  const farAhead = addDays(day, 500);
  const showcase: DemoLicence[] = [
    { productIndex: 0, licenceNo: 'DAE-PL-0001', validFrom: longAgo, validTo: farAhead, licensedQuantity: null },
    {
      productIndex: 1,
      licenceNo: 'DAE-PL-0002',
      validFrom: addDays(day, -200),
      validTo: farAhead,
      licensedQuantity: 150,
    },
    {
      productIndex: 2,
      licenceNo: 'DAE-PL-0003',
      validFrom: addDays(day, -340),
      validTo: addDays(day, 20),
      licensedQuantity: 5000,
    },
    {
      productIndex: 3,
      licenceNo: 'DAE-PL-0004',
      validFrom: addDays(day, -400),
      validTo: addDays(day, -10),
      licensedQuantity: 2000,
    },
  ];
  const others = productList.flatMap((product, productIndex): DemoLicence[] => {
    if (productIndex < SHOWCASE_PRODUCTS.length || !product.requiresLicence) return [];
    const roll = random();
    // Roughly one licensed product in twelve has no licence at all.
    if (roll < 0.08) return [];
    return [
      {
        productIndex,
        licenceNo: `DAE-PL-${String(productIndex + 1).padStart(4, '0')}`,
        validFrom: addDays(day, -Math.floor(300 + random() * 400)),
        validTo: addDays(day, Math.floor(60 + random() * 600)),
        licensedQuantity: roll < 0.4 ? null : Math.round(500 + random() * 20_000),
      },
    ];
  });
  return [...showcase, ...others];
};

const OFFICER_FIRST = [
  'Md. Abdul',
  'Md. Rafiqul',
  'Md. Shahidul',
  'Md. Kamrul',
  'Mst. Nasrin',
  'Md. Jahangir',
  'Md. Mizanur',
  'Md. Anisur',
  'Mst. Shirin',
  'Md. Habibur',
  'Md. Saiful',
  'Md. Nazrul',
];
const OFFICER_LAST = ['Karim', 'Islam', 'Alam', 'Hasan', 'Akter', 'Rahman', 'Hossain', 'Kabir', 'Sultana', 'Haque'];

export const fieldOfficers = (count = 48) => {
  const random = randomSource(41);
  const names = new Set<string>();
  while (names.size < count) {
    names.add(
      `${OFFICER_FIRST[Math.floor(random() * OFFICER_FIRST.length)]} ${OFFICER_LAST[Math.floor(random() * OFFICER_LAST.length)]}`,
    );
  }
  return [...names].map((name, index) => ({
    code: `FO${String(index + 1).padStart(3, '0')}`,
    name,
    active: (index + 1) % 12 !== 0,
  }));
};

export const PORTS = [
  { code: 'CGP', name: 'Chattogram Port', active: true },
  { code: 'MGL', name: 'Mongla Port', active: true },
  { code: 'PYR', name: 'Payra Port', active: true },
  { code: 'BNP', name: 'Benapole Land Port', active: true },
  { code: 'SMJ', name: 'Sonamasjid Land Port', active: true },
  { code: 'HIL', name: 'Hili Land Port', active: true },
  { code: 'BMR', name: 'Bhomra Land Port', active: true },
  { code: 'PGN', name: 'Pangaon Inland Container Terminal', active: true },
  { code: 'KCD', name: 'Kamalapur Inland Container Depot', active: true },
  { code: 'TKN', name: 'Teknaf Land Port (suspended)', active: false },
];

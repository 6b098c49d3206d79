/** The sheets `import` knows, by the name given on the command line. */
import type { SheetDefinition } from '../types';
import { offerCategories, offers } from './catalogue';
import { dependants, members } from './members';
import { partnerStaff } from './partner-staff';
import { locations, partners } from './partners';

export const SHEETS: Record<string, SheetDefinition> = Object.fromEntries(
  [members, dependants, partners, locations, partnerStaff, offerCategories, offers].map((d) => [d.sheet, d]),
);

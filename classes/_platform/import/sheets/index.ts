/** The sheets `import` knows, by the name given on the command line. */
import type { SheetDefinition } from '../types';
import { offerCategories, offers } from './catalogue';

export const SHEETS: Record<string, SheetDefinition> = Object.fromEntries([offerCategories, offers].map((d) => [d.sheet, d]));

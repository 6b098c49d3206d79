/** FileManager's state (the methods' inputs are the types schemas/FileManager/inputs.ts generates). */
import type { StateOf } from '../../runtime';
import type { FilesState } from './rules';

/** One instance per entity: private state holds the entity, its company and its files' metadata (file-rules.ts). */
export type FileManagerState = StateOf<FilesState>;

/** INTERNAL reads of the instance take no input */
export type NoBody = Record<string, never>;

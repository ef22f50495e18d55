// LogView (partition/logview.js) is one class whose methods live in five
// modules mixed into its prototype with Object.assign; this declaration
// tells the type check so, the way the mixins' `@satisfies
// {ThisType<LogView>}` tells each of them what `this` is.
import type { logFeed } from '../partition/logfeed.js';
import type { logInput } from '../partition/loginput.js';
import type { logPlacement } from '../partition/logplace.js';
import type { logPointers } from '../partition/logpointers.js';
import type { logRows } from '../partition/logrows.js';

type LogFeed = typeof logFeed;
type LogInput = typeof logInput;
type LogPlacement = typeof logPlacement;
type LogPointers = typeof logPointers;
type LogRows = typeof logRows;

declare module '../partition/logview.js' {
  interface LogView extends LogFeed, LogInput, LogPlacement, LogPointers, LogRows {
    /** the viewport's width when last measured (logplace.js), unset before */
    measuredW?: number;
    /** where a row's cells start under its flags and batch brackets, and the flags' height (logplace.js) */
    cellTop?: number;
    flagsH?: number;
    /** a slot's width, the flags' font and their labels' padding, measured with the rows (logplace.js) */
    slotW?: number;
    flagFont?: string;
    flagPad?: number;
    /** the canvas the flags' labels are measured on (logpointers.js) */
    measureCtx?: CanvasRenderingContext2D | null;
    /** the flags' lines, each pointed offset's room and the flags shown short (flaglines.js, logpointers.js) */
    flagLines?: number;
    flagRoom?: Map<number, number>;
    flagShort?: Set<string>;
  }
}

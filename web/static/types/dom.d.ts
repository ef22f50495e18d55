// The page finds its elements by the ids and selectors of the server's
// templates (web/pages/*.templ). Those lookups are typed loosely here —
// any element the template put there — rather than cast at each of the
// few hundred call sites: the type check is about the data the page
// reads and the modules' own interfaces, not the templates' tags.
export {};

declare global {
  interface Document {
    getElementById(elementId: string): any;
  }
  interface ParentNode {
    querySelector(selectors: string): any;
    querySelectorAll(selectors: string): NodeListOf<HTMLElement>;
  }
}

declare global {
  // The page's own events on document, with what they carry.
  interface DocumentEventMap {
    /** a lesson run as the server reported it (classroom.js), for the lessons panel */
    'offsetlab:lesson-run': CustomEvent<any>;
    /** the lesson run the lessons panel shows, for the step stage */
    'offsetlab:lesson-shown': CustomEvent<any>;
    /** the log's wanted height (logview.js) */
    'offsetlab:log-height': CustomEvent<number>;
    /** the dock's tab on show (dock.js) */
    'offsetlab:tab': CustomEvent<string>;
  }
}

/** Local requests (interface spec "Local request"): kept only in this browser, never sent to the Assay API unless the user relays or saves one. */
export { LocalRequestsPage } from './page';

/** Local requests (interface spec "Local request"): kept only in this browser, never sent to the Assay API. */
import { Empty } from '../ui/kit';

export function LocalRequestsPage() {
  return <Empty title="Coming soon" />;
}

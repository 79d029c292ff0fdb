import { PageLoading } from "@/components/ui/page-loading";

/**
 * Only sections without a record page below them have a loading skeleton: a skeleton starts the
 * response (status 200) before the page runs, so a record page's notFound() could no longer answer
 * 404 (Next's loading.js "Status codes"). Agents, hooks, runs and alerts render whole instead.
 */
export default PageLoading;

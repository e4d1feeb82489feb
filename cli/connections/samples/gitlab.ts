// GitLab webhook payloads, cut down from GitLab's documented examples ("Webhook events" in the
// GitLab docs): what `svc connections test` sends for a gitlab connection, keyed by event type.
const project = {
  id: 15,
  name: 'Diaspora',
  description: '',
  web_url: 'http://example.com/mike/diaspora',
  git_ssh_url: 'git@example.com:mike/diaspora.git',
  git_http_url: 'http://example.com/mike/diaspora.git',
  namespace: 'Mike',
  visibility_level: 0,
  path_with_namespace: 'mike/diaspora',
  default_branch: 'main',
};
const user = { id: 1, name: 'Administrator', username: 'root', avatar_url: 'http://www.gravatar.com/avatar/e64c7d89f26bd1972efa854d13d7dd61?s=40&d=identicon', email: 'admin@example.com' };
const repository = { name: 'Diaspora', url: 'git@example.com:mike/diaspora.git', description: '', homepage: 'http://example.com/mike/diaspora' };

const mergeRequest = (action: string, state: string) => ({
  object_kind: 'merge_request',
  event_type: 'merge_request',
  user,
  project,
  repository,
  object_attributes: {
    id: 99,
    iid: 1,
    target_branch: 'main',
    source_branch: 'ms-viewport',
    source_project_id: 14,
    author_id: 51,
    title: 'MS-Viewport',
    created_at: '2013-12-03T17:23:34Z',
    updated_at: '2013-12-03T17:23:34Z',
    state,
    merge_status: 'unchecked',
    target_project_id: 14,
    description: '',
    url: 'http://example.com/mike/diaspora/-/merge_requests/1',
    last_commit: { id: 'da1560886d4f094c3e6c9ef40349f7d38b5d27d7', message: 'fixed readme', timestamp: '2012-01-03T23:36:29+02:00', url: 'http://example.com/mike/diaspora/-/commit/da1560886d4f094c3e6c9ef40349f7d38b5d27d7', author: { name: 'GitLab dev user', email: 'gitlabdev@dv6700.(none)' } },
    work_in_progress: false,
    action,
  },
  labels: [],
  changes: {},
});

export const gitlabSamples: Record<string, Record<string, unknown>> = {
  push: {
    object_kind: 'push',
    event_name: 'push',
    before: '95790bf891e76fee5e1747ab589903a6a1f80f22',
    after: 'da1560886d4f094c3e6c9ef40349f7d38b5d27d7',
    ref: 'refs/heads/main',
    ref_protected: true,
    checkout_sha: 'da1560886d4f094c3e6c9ef40349f7d38b5d27d7',
    user_id: 4,
    user_name: 'John Smith',
    user_username: 'jsmith',
    user_email: 'john@example.com',
    project_id: 15,
    project,
    repository,
    commits: [
      {
        id: 'da1560886d4f094c3e6c9ef40349f7d38b5d27d7',
        message: 'fixed readme',
        title: 'fixed readme',
        timestamp: '2012-01-03T23:36:29+02:00',
        url: 'http://example.com/mike/diaspora/-/commit/da1560886d4f094c3e6c9ef40349f7d38b5d27d7',
        author: { name: 'GitLab dev user', email: 'gitlabdev@dv6700.(none)' },
        added: ['CHANGELOG'],
        modified: ['app/controller/application.rb'],
        removed: [],
      },
    ],
    total_commits_count: 1,
  },
  'merge_request.open': mergeRequest('open', 'opened'),
  'merge_request.merge': mergeRequest('merge', 'merged'),
  'issue.open': {
    object_kind: 'issue',
    event_type: 'issue',
    user,
    project,
    repository,
    object_attributes: {
      id: 301,
      iid: 23,
      title: 'New API: create/update/delete file',
      description: 'Create new API for manipulations with repository',
      state: 'opened',
      created_at: '2013-12-03T17:15:43Z',
      updated_at: '2013-12-03T17:15:43Z',
      url: 'http://example.com/mike/diaspora/-/issues/23',
      action: 'open',
    },
    labels: [],
  },
};

/** The `X-Gitlab-Event` header GitLab sends with each `object_kind`. */
export const GITLAB_EVENT_HEADERS: Record<string, string> = {
  push: 'Push Hook',
  tag_push: 'Tag Push Hook',
  merge_request: 'Merge Request Hook',
  issue: 'Issue Hook',
  note: 'Note Hook',
  pipeline: 'Pipeline Hook',
  build: 'Job Hook',
  release: 'Release Hook',
};

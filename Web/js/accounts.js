// The server's API for accounts, sessions, tokens, members and share links (issue 10,
// docs/API.md). Every call answers parsed JSON or throws an ApiError with the server's
// message, status and extra fields (codeRequired, passwordRequired, retryAfter).
import { answer } from './api.js';

async function call(method, path, body) {
  const init = { method, headers: {} };
  if (body !== undefined) { init.body = JSON.stringify(body); init.headers['content-type'] = 'application/json'; }
  return answer(await fetch(path, init));
}

const g = (gallery) => `/api/galleries/${gallery}`;

export const accounts = {
  session: () => call('GET', '/api/session'),
  setup: (token, name, password) => call('POST', '/api/setup', { token, name, password }),
  login: (name, password, code) => call('POST', '/api/login', { name, password, ...(code ? { code } : {}) }),
  logout: () => call('POST', '/api/logout'),
  logoutEverywhere: () => call('POST', '/api/logout-everywhere'),

  users: () => call('GET', '/api/users'),
  addUser: (name, password, admin) => call('POST', '/api/users', { name, password, admin }),
  setPassword: (user, password, current) => call('PATCH', `/api/users/${user}`, { password, ...(current ? { current } : {}) }),
  removeUser: (user) => call('DELETE', `/api/users/${user}`),

  startTOTP: (password) => call('POST', '/api/me/totp', { password }),
  confirmTOTP: (code) => call('POST', '/api/me/totp/confirm', { code }),
  disableTOTP: (password) => call('DELETE', '/api/me/totp', { password }),

  tokens: () => call('GET', '/api/tokens'),
  createToken: (name, scope) => call('POST', '/api/tokens', { name, scope }),
  revokeToken: (id) => call('DELETE', `/api/tokens/${id}`),

  members: (gallery) => call('GET', `${g(gallery)}/members`),
  /// `user`: an id, or a name (the server resolves it).
  setMember: (gallery, user, role) => call('PUT', `${g(gallery)}/members/${encodeURIComponent(user)}`, { role }),
  removeMember: (gallery, user) => call('DELETE', `${g(gallery)}/members/${user}`),

  links: (gallery) => call('GET', `${g(gallery)}/links`),
  createLink: (gallery, options) => call('POST', `${g(gallery)}/links`, options),
  revokeLink: (gallery, link) => call('DELETE', `${g(gallery)}/links/${link}`),
  openLink: (token, password) => call('POST', '/api/links/open', { token, ...(password ? { password } : {}) }),
  linkUploads: () => call('GET', '/api/links/uploads'),
};

// The page's only way to the server: JSON over fetch with the bearer token.

export class ApiError extends Error {
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

export class Api {
  constructor(token) {
    this.token = token;
  }

  async call(method, path, { body, params } = {}) {
    let url = path;
    if (params) {
      const q = new URLSearchParams();
      for (const [k, v] of Object.entries(params)) {
        if (v === undefined || v === null || v === "") continue;
        for (const item of Array.isArray(v) ? v : [v]) q.append(k, String(item));
      }
      const s = q.toString();
      if (s) url += `?${s}`;
    }
    const init = {
      method,
      headers: { Authorization: `Bearer ${this.token}`, Accept: "application/json" },
    };
    if (body !== undefined) {
      init.headers["Content-Type"] = "application/json";
      init.body = JSON.stringify(body);
    }
    let response;
    try {
      response = await fetch(url, init);
    } catch (err) {
      throw new ApiError(0, "network", `the server cannot be reached (${err.message})`);
    }
    let data = null;
    try {
      data = await response.json();
    } catch {
      data = null;
    }
    if (!response.ok) {
      const e = (data && data.error) || {};
      throw new ApiError(response.status, e.code || "error", e.message || response.statusText);
    }
    return data;
  }

  get(path, params) { return this.call("GET", path, { params }); }
  post(path, body = {}) { return this.call("POST", path, { body }); }
}

export function bankPath(bank, rest = "") {
  return `/v1/banks/${encodeURIComponent(bank)}${rest}`;
}

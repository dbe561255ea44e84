// The nginx config of a scaled-out MCP server: instances `upstreams` (host:port) behind one port.
//
//   - No Mcp-Session-Id (stateless requests, and every initialize): round robin over all instances.
//   - Mcp-Session-Id `iN.<uuid>`: the instance that made the session (its name is the id's prefix),
//     with the others as backups, so a resume still finds a live instance when that one is gone.
//
// The session blocks never mark their instance down (max_fails=0): nginx keeps failure state per upstream
// block, so after an instance restarts, mcp_any may already send it `initialize` while its own block still
// counts it failed and sends that new session's next request to a backup, which answers 404. With
// max_fails=0 each request of a session tries its maker first; a refused connection (the instance is down)
// moves it to a backup at once, as before.
//
// Why not `hash $http_mcp_session_id consistent`: a session is made by whichever instance got the
// initialize, and a hash of its (random) id names another instance two times out of three.
// Used by scripts/test-scale.mjs and the benchmark; print one with
//   node examples/scale/nginx.conf.mjs 127.0.0.1:3001 127.0.0.1:3002 127.0.0.1:3003
export function nginxConfig({ port, upstreams, dir = '.' }) {
  const names = upstreams.map((_, index) => `i${index + 1}`);
  const sticky = upstreams
    .map(
      (_, index) => `
  upstream mcp_${names[index]} {
    server ${upstreams[index]} max_fails=0;
${upstreams
  .filter((__, other) => other !== index)
  .map((address) => `    server ${address} backup;`)
  .join('\n')}
    keepalive 16;
    keepalive_timeout 4s;
  }`,
    )
    .join('\n');
  return `worker_processes 1;
pid ${dir}/nginx.pid;
events { worker_connections 1024; }
http {
  access_log off;
  client_body_temp_path ${dir}/body;
  proxy_temp_path ${dir}/proxy;
  fastcgi_temp_path ${dir}/fastcgi;
  uwsgi_temp_path ${dir}/uwsgi;
  scgi_temp_path ${dir}/scgi;

  upstream mcp_any {
${upstreams.map((address) => `    server ${address} max_fails=1 fail_timeout=5s;`).join('\n')}
    keepalive 32;
    # Below the instances' own keep-alive timeout (node:http's 5 s): nginx lets go of an idle connection
    # first, never reusing one an instance is closing that moment (a POST lost so is not retried: 502).
    keepalive_timeout 4s;
  }
${sticky}

  map $http_mcp_session_id $mcp_upstream {
    default mcp_any;
${names.map((name) => `    ~^${name}\\. mcp_${name};`).join('\n')}
  }

  server {
    listen 127.0.0.1:${port};
    client_max_body_size 4m;
    location / {
      proxy_pass http://$mcp_upstream;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_set_header Host $http_host;
      # Streams (SSE and MessagePack frames) go out as they are written, not when a buffer fills.
      proxy_buffering off;
      proxy_cache off;
      proxy_read_timeout 1h;
      # An instance that refuses the connection (stopped, killed) is skipped; a request it already
      # started is not replayed elsewhere (POST is not idempotent): the client resumes it instead.
      proxy_next_upstream error timeout http_502;
      proxy_next_upstream_tries 3;
      # A host that is gone without refusing connections is given up on after 2 s, not nginx's 60 s.
      proxy_connect_timeout 2s;
      add_header X-Upstream $upstream_addr always;
    }
  }
}
`;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(nginxConfig({ port: 8080, upstreams: process.argv.slice(2) }));
}

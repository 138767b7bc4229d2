-- A real client for `schedlint lsp`: Neovim's own, headless (tests/run-lsp.sh). It opens the seed's
-- manifest in the workspace $WS and attaches the server: with $SCHEDLINT set, itself ($SCHEDLINT
-- lsp, the nodes through initializationOptions; vim.lsp.start where there is one, 0.8 and later,
-- else vim.lsp.start_client and buf_attach_client, 0.7); without, through the FileType autocommand
-- of docs/editors/neovim/schedlint.lua, loaded before this file (schedlint on PATH, the nodes from
-- the workspace's .schedlint.yaml). It prints the diagnostics it received, applies the preferred
-- quick fix the way Neovim applies a code action's edit, lets Neovim send the change, and prints
-- the diagnostics again. Every line it prints starts with "nvim: ".
local function say(s)
  io.stdout:write('nvim: ' .. s .. '\n')
end

local ws = os.getenv('WS')
local file = ws .. '/manifest.yaml'
vim.cmd('edit ' .. vim.fn.fnameescape(file))
local buf = vim.api.nvim_get_current_buf()
local client
if os.getenv('SCHEDLINT') then
  local config = {
    name = 'schedlint',
    cmd = { os.getenv('SCHEDLINT'), 'lsp' },
    root_dir = ws,
    init_options = { nodes = { 'nodes.yaml' } },
  }
  local id
  if vim.lsp.start then
    id = vim.lsp.start(config)
  else
    id = vim.lsp.start_client(config)
    vim.lsp.buf_attach_client(buf, id)
  end
  client = vim.lsp.get_client_by_id(id)
else
  say('filetype ' .. vim.bo[buf].filetype)
  vim.wait(10000, function() return next(vim.lsp.buf_get_clients(buf)) ~= nil end, 20)
  local _, c = next(vim.lsp.buf_get_clients(buf))
  client = c
  if not client then
    say('no client attached')
    vim.cmd('cquit 1')
  end
  say('root ' .. tostring(client.config.root_dir))
end

local function show(when)
  local ds = vim.diagnostic.get(buf)
  say(string.format('%s: %d diagnostics', when, #ds))
  for _, d in ipairs(ds) do
    local lsp = d.user_data and d.user_data.lsp or {}
    local href = lsp.codeDescription and lsp.codeDescription.href or ''
    say(string.format('%d:%d-%d:%d severity %d code %s source %s related %d href %s', d.lnum, d.col, d.end_lnum,
      d.end_col, d.severity, tostring(d.code), tostring(d.source), #(lsp.relatedInformation or {}),
      href:match('[^/]*$')))
    say('message: ' .. vim.split(d.message, '\n')[1])
  end
  return ds
end

if not vim.wait(30000, function() return #vim.diagnostic.get(buf) > 0 end, 20) then
  say('no diagnostics within 30 s')
end
local ds = show('opened')
if #ds > 0 then
  local d = ds[1]
  local params = {
    textDocument = { uri = vim.uri_from_bufnr(buf) },
    range = { start = { line = d.lnum, character = 0 }, ['end'] = { line = d.lnum, character = 0 } },
    context = { diagnostics = { d.user_data.lsp } },
  }
  local resp = client.request_sync('textDocument/codeAction', params, 30000, buf)
  local actions = resp and resp.result or {}
  say(string.format('code actions: %d', #actions))
  for _, a in ipairs(actions) do
    if a.isPreferred then
      say('applying: ' .. a.title)
      vim.lsp.util.apply_workspace_edit(a.edit, client.offset_encoding or 'utf-16')
    end
  end
  -- Neovim sends the change itself (debounced); the server answers with the new diagnostics.
  vim.wait(30000, function() return #vim.diagnostic.get(buf) == 0 end, 20)
  show('fixed')
  local lines = vim.api.nvim_buf_get_lines(buf, 11, 17, false)
  say('buffer: ' .. table.concat(lines, '|'))
end
client.stop()
vim.wait(10000, function() return client.is_stopped() end, 20)
say(string.format('server stopped: %s', tostring(client.is_stopped())))
vim.cmd('qa!')

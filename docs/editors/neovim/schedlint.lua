-- schedlint's language server in Neovim's own client: findings as you type, fixes as code actions.
-- Copy to ~/.config/nvim/plugin/schedlint.lua (or paste into init.lua). YAML and JSON buffers get
-- `schedlint lsp`, one server per workspace: the nearest directory above the file holding
-- .schedlint.yaml, else .git, else the file's own directory. The inventory comes from the
-- workspace's .schedlint.yaml (nodes: [...]); without one, name it in init_options below.
-- Works with Neovim 0.7 and later: vim.lsp.start where there is one, else start_client.
local clients = {} -- 0.7: the client of each workspace, started once

local function workspace(file)
  local dir = vim.fn.fnamemodify(file, ':p:h')
  for _, marker in ipairs({ '.schedlint.yaml', '.schedlint.yml' }) do
    local found = vim.fn.findfile(marker, dir .. ';')
    if found ~= '' then
      return vim.fn.fnamemodify(found, ':p:h')
    end
  end
  local git = vim.fn.finddir('.git', dir .. ';')
  return git ~= '' and vim.fn.fnamemodify(git, ':p:h:h') or dir
end

local function start(args)
  local file = vim.api.nvim_buf_get_name(args.buf)
  if file == '' then
    return
  end
  local root = workspace(file)
  local config = {
    name = 'schedlint',
    cmd = { 'schedlint', 'lsp' },
    root_dir = root,
    -- init_options = { nodes = { 'cluster/nodes.yaml' } }, -- relative to root_dir
  }
  if vim.lsp.start then
    vim.lsp.start(config, { bufnr = args.buf }) -- reuses the workspace's running client
    return
  end
  local id = clients[root]
  if not id or not vim.lsp.get_client_by_id(id) then
    id = vim.lsp.start_client(config)
    clients[root] = id
  end
  vim.lsp.buf_attach_client(args.buf, id)
end

vim.api.nvim_create_autocmd('FileType', { pattern = { 'yaml', 'json' }, callback = start })

-- Neovim's own LSP client driving goplsmcp lsp (see TestNeovim in
-- nvim_test.go): open report/report.go, type an unsaved change, see its
-- diagnostic, hover, go to a definition; then, once the test has had an
-- agent look and killed the daemon, check that the unsaved buffer
-- survived. Each result is a line of $OUT; $GO names the file the test
-- makes when it is done with its part.
local root, out_path, go_path = os.getenv('ROOT'), os.getenv('OUT'), os.getenv('GO')
local out = io.open(out_path, 'w')
local function log(s)
  out:write(s .. '\n')
  out:flush()
end
local function fail(s)
  log('FAIL ' .. s)
  vim.cmd('qa!')
end

local cmd = { os.getenv('GOPLSMCP'), 'lsp', '-mode=stdio', '--gopls', os.getenv('GOPLS') }
if os.getenv('SHARE') == '1' then
  table.insert(cmd, '--share-unsaved')
end
local config = { name = 'gopls', cmd = cmd, root_dir = root }
local start = vim.lsp.start_client
local id = start(config)
if not id then
  fail('the client did not start')
end

vim.cmd('edit ' .. root .. '/report/report.go')
local buf = vim.api.nvim_get_current_buf()
vim.lsp.buf_attach_client(buf, id)
log('OPEN report/report.go')
if not vim.wait(60000, function()
  local c = vim.lsp.get_client_by_id(id)
  return c ~= nil and c.initialized
end, 50) then
  fail('not initialized within 60s')
end
log('INITIALIZED')

local function has(pattern)
  for _, d in ipairs(vim.diagnostic.get(buf)) do
    if d.message:find(pattern, 1, true) then
      return d.lnum .. ': ' .. d.message
    end
  end
  return false
end

-- An unsaved change: a line gopls finds wrong.
local n = vim.api.nvim_buf_line_count(buf)
vim.api.nvim_buf_set_lines(buf, n, n, false, { 'var X int = "s"' })
log('TYPED (unsaved) line ' .. n .. ': var X int = "s"')
if not vim.wait(60000, function() return has('cannot use "s"') end, 50) then
  fail('no diagnostic of the unsaved change within 60s')
end
log('DIAG unsaved, line ' .. has('cannot use "s"'))

local function hover(line, col)
  local res = vim.lsp.buf_request_sync(buf, 'textDocument/hover', {
    textDocument = { uri = vim.uri_from_bufnr(buf) }, position = { line = line, character = col } }, 60000)
  for _, r in pairs(res or {}) do
    if r.result and r.result.contents then
      return (r.result.contents.value or vim.inspect(r.result.contents)):gsub('\n', ' ')
    end
  end
  return 'none'
end
log('HOVER ' .. hover(n, 4))

-- Go to definition from main.go, a buffer of its own.
vim.cmd('edit ' .. root .. '/main.go')
local main = vim.api.nvim_get_current_buf()
vim.lsp.buf_attach_client(main, id)
local res = vim.lsp.buf_request_sync(main, 'textDocument/definition', {
  textDocument = { uri = vim.uri_from_bufnr(main) }, position = { line = 12, character = 21 } }, 60000)
for _, r in pairs(res or {}) do
  local loc = r.result and (r.result[1] or r.result)
  if loc then
    log('DEF ' .. (loc.uri or loc.targetUri) .. ':' .. loc.range.start.line)
  end
end
vim.cmd('buffer ' .. buf)

log('STEP1')
if not vim.wait(90000, function() return vim.loop.fs_stat(go_path) ~= nil end, 50) then
  fail('the test did not say go on within 90s')
end

-- The daemon was killed: the buffer's unsaved line must still be in
-- gopls, beside a new one.
vim.api.nvim_buf_set_lines(buf, n + 1, n + 1, false, { 'var Z string = 2' })
log('TYPED (unsaved, after the daemon was killed) line ' .. (n + 1) .. ': var Z string = 2')
if not vim.wait(60000, function() return has('cannot use "s"') and has('cannot use 2') end, 50) then
  local msgs = {}
  for _, d in ipairs(vim.diagnostic.get(buf)) do
    table.insert(msgs, d.message)
  end
  fail('after the daemon was killed, diagnostics: ' .. table.concat(msgs, ' | '))
end
log('DIAG both')
log('HOVER2 ' .. hover(n, 4))
log('DONE')
vim.lsp.stop_client(id)
vim.wait(5000, function() return vim.lsp.get_client_by_id(id) == nil end, 50)
vim.cmd('qa!')

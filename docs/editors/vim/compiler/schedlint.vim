" Vim compiler file for schedlint: `:compiler schedlint`, then `:make --nodes nodes.yaml k8s/`
" fills the quickfix list with one entry per diagnostic, typed E (error), W (warning) or N (note:
" the proof, related locations, notes about the input), at the file, line and column it names.
" Install: copy this file to ~/.vim/compiler/ (Neovim: ~/.config/nvim/compiler/).

if exists("current_compiler")
  finish
endif
let current_compiler = "schedlint"

" Vim before 8.0 defines CompilerSet only for the files it ships.
if exists(":CompilerSet") != 2
  command -nargs=* CompilerSet setlocal <args>
endif

let s:cpo_save = &cpo
set cpo&vim

" No colour whatever the environment says: the escapes would end up in the messages.
CompilerSet makeprg=schedlint\ --color\ never
" path:line:column: level: message, as schedlint prints every diagnostic; "schedlint: error: …"
" (an option or a config file it could not use) has no location; nothing else is an entry.
CompilerSet errorformat=%f:%l:%c:\ %trror:\ %m,
      \%f:%l:%c:\ %tarning:\ %m,
      \%f:%l:%c:\ %tote:\ %m,
      \schedlint:\ %trror:\ %m,
      \%-G%.%#

let &cpo = s:cpo_save
unlet s:cpo_save

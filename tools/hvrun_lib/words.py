"""Word splitting and quoting for the hypervisor and module command lines.

GRUB's script parser removes one level of quoting from each argument of
`multiboot2` / `module2`, then grub_create_loader_cmdline() (grub-core/lib/
cmdline.c) joins the arguments again: an argument holding a space is wrapped in
double quotes, and every backslash, double and single quote in it gets a
backslash. hvrun therefore passes each word single-quoted (nothing is special
inside GRUB single quotes) and the hypervisor receives `received_form(words)`.
Both the form the user typed and the form GRUB hands over split back into the
same words with `split_words`, which is the rule the hypervisor implements.
"""

GRUB_ESCAPED = '\\"\''


class WordError(ValueError):
    """A command line that cannot be split or passed through GRUB."""


def split_words(text):
    """Split like a POSIX shell without expansions: blanks separate words,
    "..." and '...' group, a backslash takes the next character literally
    (inside "...", only before \\ " and '; elsewhere it stays)."""
    words, cur, have = [], [], False
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c in ' \t':
            if have:
                words.append(''.join(cur))
                cur, have = [], False
            i += 1
            continue
        have = True
        if c == '\\':
            if i + 1 >= n:
                raise WordError('trailing backslash')
            cur.append(text[i + 1])
            i += 2
        elif c == "'":
            j = text.find("'", i + 1)
            if j < 0:
                raise WordError("unterminated ' quote")
            cur.append(text[i + 1:j])
            i = j + 1
        elif c == '"':
            i = _split_dquote(text, i + 1, cur)
        else:
            cur.append(c)
            i += 1
    if have:
        words.append(''.join(cur))
    return words


def _split_dquote(text, i, cur):
    n = len(text)
    while i < n:
        c = text[i]
        if c == '"':
            return i + 1
        if c == '\\' and i + 1 < n and text[i + 1] in GRUB_ESCAPED:
            cur.append(text[i + 1])
            i += 2
            continue
        cur.append(c)
        i += 1
    raise WordError('unterminated " quote')


def join_words(words):
    """Inverse of split_words: backslash-escape blanks, quotes, backslashes."""
    return ' '.join(''.join('\\' + c if c in ' \t\\"\'' else c for c in w) or '""'
                    for w in words)


def check_word(word):
    """GRUB reads grub.cfg line by line: a word may not hold a line break."""
    if any(c in word for c in '\n\r\0'):
        raise WordError(f'line break or NUL in {word!r}')
    return word


def grub_quote(word):
    """Quote one word for grub.cfg so GRUB's parser returns it unchanged."""
    check_word(word)
    return "'" + word.replace("'", "'\\''") + "'"


def received_word(word):
    """What grub_create_loader_cmdline() makes of one argument."""
    out = ''.join('\\' + c if c in GRUB_ESCAPED else c for c in word)
    return f'"{out}"' if ' ' in word else out


def received_form(words):
    """The exact string the hypervisor finds in the multiboot2 tag."""
    return ' '.join(received_word(w) for w in words)


def word_key(word):
    """'key=value' -> 'key'; a flag is its own key."""
    return word.split('=', 1)[0]


def has_key(words, key):
    return any(word_key(w) == key for w in words)

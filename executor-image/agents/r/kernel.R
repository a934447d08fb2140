# The R kernel of Sandpit's R agent: runs each execution's code at top level in the global environment, as R's
# own console would (visible values printed, warnings shown), and reports to the agent (main.pl) on fd 4.
# Requests arrive on fd 3, one a line: "exec <marker> <hex of the code>". Replies, one a line, fields in hex:
# "ready <version>", "error <class> <message> <traceback>", "display <png path>", "finished <status>".
local({
  here <- Sys.getenv("SANDPIT_AGENT_DIR", "/opt/sandpit/agent")
  setwd(Sys.getenv("SANDPIT_WORKSPACE", "/workspace"))
  sys.source(file.path(here, "display.R"), envir = environment(), keep.source = FALSE)
  requests <- fifo("/proc/self/fd/3", open = "r", blocking = TRUE)
  replies <- fifo("/proc/self/fd/4", open = "w", blocking = TRUE)
  # Spare descriptors: closed while the kernel does its own work after code that used every one up.
  reserve <- function() lapply(1:4, function(i) tryCatch(file("/dev/null", open = "r"), error = function(e) NULL))
  spares <- reserve()

  to_hex <- function(text) {
    raw <- charToRaw(enc2utf8(paste(text, collapse = "\n")))
    if (length(raw) == 0) "-" else paste(as.character(raw), collapse = "")
  }
  from_hex <- function(hex) {
    if (hex == "-") return("")
    bytes <- as.raw(strtoi(substring(hex, seq(1, nchar(hex), 2), seq(2, nchar(hex), 2)), 16L))
    text <- rawToChar(bytes)
    Encoding(text) <- "UTF-8"
    text
  }
  reply <- function(...) {
    writeLines(paste(...), replies)
    flush(replies)
  }

  # R's own words for an error at top level: "Error in f(x) : message", then the calls that led there.
  describe_error <- function(cond, calls) {
    call <- user_call(conditionCall(cond))
    head <- if (is.null(call)) "Error: " else paste0("Error in ", paste(deparse(call, nlines = 1), collapse = ""), " : ")
    text <- paste0(head, conditionMessage(cond))
    names <- vapply(calls, function(c) paste(deparse(c[[1]], nlines = 1), collapse = ""), "")
    signal <- match(TRUE, names %in% c(".handleSimpleError", "stop", "h", ".signalSimpleWarning"), nomatch = length(names) + 1L)
    names <- names[seq_len(signal - 1L)]
    if (length(names) > 1) text <- paste0(text, "\nCalls: ", paste(names, collapse = " -> "))
    text
  }

  top <- quote(eval(e, envir = globalenv()))
  # The calls of user code: what runs below the kernel's own eval of a top-level expression.
  user_calls <- function(calls) {
    mine <- which(vapply(calls, function(c) identical(c, top), TRUE))
    if (length(mine) == 0) list() else calls[-seq_len(max(mine))]
  }
  # A condition raised by a top-level expression itself names no call, as at R's prompt.
  user_call <- function(call) if (is.null(call) || identical(call, top)) NULL else call

  show_value <- function(value) if (isS4(value)) methods::show(value) else print(value)

  # install.packages() in user code: the session's package store (first on .libPaths()) is read-only to it;
  # Sandpit's installer fills it. Found before utils' own on the search path, this one says what to do instead,
  # and is quiet about packages that are installed already (utils::install.packages stays reachable).
  sandpit_packages <- new.env()
  sandpit_packages$install.packages <- function(pkgs, ...) {
    pkgs <- as.character(pkgs)
    missing <- pkgs[!vapply(pkgs, function(p) nzchar(system.file(package = p)), TRUE)]
    if (length(missing) == 0) {
      message("Already installed: ", paste(pkgs, collapse = ", "), ".")
      return(invisible(NULL))
    }
    stop(paste0("R code cannot install packages in this session: install ", paste(missing, collapse = ", "),
      " with Sandpit's install_packages (or Packages on the session's page in the panel), then library() finds it."), call. = FALSE)
  }
  attach(sandpit_packages, name = "sandpit:packages", warn.conflicts = FALSE)

  run <- 0L
  execute <- function(code) {
    status <- "ok"
    failure <- NULL
    exprs <- tryCatch(parse(text = code, keep.source = TRUE), error = function(e) {
      failure <<- list(name = "SyntaxError", value = conditionMessage(e), traceback = paste0("Error: ", conditionMessage(e)))
      NULL
    })
    if (!is.null(failure)) return(list(status = "error", failure = failure))
    calls <- NULL
    tryCatch(
      withCallingHandlers(
        for (expr in exprs) {
          sandpit_eval <- function(e) withVisible(eval(e, envir = globalenv()))
          result <- sandpit_eval(expr)
          if (result$visible) show_value(result$value)
        },
        error = function(e) calls <<- sys.calls(),
        warning = function(w) {
          call <- user_call(conditionCall(w))
          where <- if (is.null(call)) "" else paste0("In ", paste(deparse(call, nlines = 1), collapse = ""), " : ")
          cat("Warning message:\n", where, conditionMessage(w), "\n", sep = "", file = stderr())
          invokeRestart("muffleWarning")
        }
      ),
      error = function(e) {
        status <<- "error"
        failure <<- list(name = class(e)[1], value = conditionMessage(e), traceback = describe_error(e, user_calls(calls)))
      },
      interrupt = function(e) status <<- "interrupted"
    )
    list(status = status, failure = failure)
  }

  # An interrupt (INT from the agent) is meant for the code of a run. One that reaches R between runs (late:
  # the run it was sent for had ended) is taken as the next request arrives and dropped, so it cannot cut that
  # run; one that reaches R while it reports a run makes it go on where it was, so no reply is lost or sent
  # twice; none reaches the top level (where it would halt R).
  drain_interrupt <- function() tryCatch({ for (i in 1:2000) NULL; FALSE }, interrupt = function(e) TRUE)
  report <- function(marker, outcome) {
    step <- 0L
    pages <- character(0)
    shown <- 0L
    repeat {
      reported <- tryCatch({
        if (step < 1L) { for (con in spares) if (!is.null(con)) try(close(con), silent = TRUE); step <- 1L }
        if (step < 2L) { pages <- sandpit_collect_plots(); step <- 2L }
        if (step < 3L) { cat(marker, "\n", sep = ""); step <- 3L }
        if (step < 4L) { cat(marker, "\n", sep = "", file = stderr()); step <- 4L }
        f <- outcome$failure
        if (step < 5L) { if (!is.null(f)) reply("error", to_hex(f$name), to_hex(f$value), to_hex(f$traceback)); step <- 5L }
        while (shown < length(pages)) { reply("display", to_hex(pages[shown + 1L])); shown <- shown + 1L }
        if (step < 6L) { reply("finished", outcome$status); step <- 6L }
        if (step < 7L) { spares <<- reserve(); step <- 7L }
        TRUE
      }, interrupt = function(e) FALSE)
      if (reported) break
    }
  }

  reply("ready", to_hex(paste(R.version$major, R.version$minor, sep = ".")))
  repeat {
    line <- tryCatch(readLines(requests, n = 1), interrupt = function(e) NA_character_)
    drain_interrupt()
    if (length(line) == 0) break
    if (is.na(line)) next
    fields <- strsplit(line, " ", fixed = TRUE)[[1]]
    if (length(fields) != 3 || fields[1] != "exec") next
    outcome <- tryCatch({
      run <- run + 1L
      sandpit_begin_plots(run)
      execute(from_hex(fields[3]))
    }, interrupt = function(e) list(status = "interrupted", failure = NULL))
    report(from_hex(fields[2]), outcome)
  }
})

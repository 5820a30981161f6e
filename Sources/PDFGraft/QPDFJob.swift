import CQPDF
import Foundation

/// One run of libqpdf's job API: what the `qpdf` command does, described as JSON
/// (`qpdf --job-json-help`). Owns its job and its logger, freed in `deinit`; what qpdf would
/// print goes into `messages` instead.
final class QPDFJob {
    private var job: qpdfjob_handle?
    private var logger: qpdflogger_handle?
    private let log = Messages()

    /// What qpdf said while the job ran: warnings and errors.
    final class Messages {
        var text = ""
    }

    init() {
        job = qpdfjob_init()
        logger = qpdflogger_create()
        let context = Unmanaged.passUnretained(log).toOpaque()
        let collect: qpdf_log_fn_t = { data, length, context in
            guard let data, let context else { return 0 }
            let messages = Unmanaged<Messages>.fromOpaque(context).takeUnretainedValue()
            messages.text += String(decoding: UnsafeRawBufferPointer(start: data, count: length), as: UTF8.self)
            return 0
        }
        qpdflogger_set_info(logger, qpdf_log_dest_discard, nil, nil)
        qpdflogger_set_warn(logger, qpdf_log_dest_custom, collect, context)
        qpdflogger_set_error(logger, qpdf_log_dest_custom, collect, context)
        qpdfjob_set_logger(job, logger)
    }

    deinit {
        qpdfjob_cleanup(&job)
        qpdflogger_cleanup(&logger)
    }

    /// Runs the job `description` gives; throws with qpdf's messages when it fails. Warnings
    /// alone (exit status 3: a damaged file qpdf recovered) do not fail it.
    func run(_ description: [String: Any], naming path: String) throws {
        let json = String(decoding: try JSONSerialization.data(withJSONObject: description, options: [.sortedKeys]), as: UTF8.self)
        guard qpdfjob_initialize_from_json(job, json) == 0 else {
            throw PDFGraftError(path: path, cause: .failed("qpdf refused the job: " + log.summary))
        }
        let status = qpdfjob_run(job)
        guard status == 0 || status == 3 else { throw PDFGraftError(path: path, cause: .failed(log.summary)) }
    }
}

extension QPDFJob.Messages {
    /// The messages on one line, without qpdf's own program name.
    var summary: String {
        let lines = text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        return lines.isEmpty ? "libqpdf failed" : lines.joined(separator: "; ")
    }
}

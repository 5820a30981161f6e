/// The HTML templates, stylesheet and scripts of the report, compiled into the binary so an
/// installed `gloss` needs no files beside it.
public enum Templates {
    public static var page: String { String(decoding: PackageResources.page_html, as: UTF8.self) }
    public static var index: String { String(decoding: PackageResources.index_html, as: UTF8.self) }
    public static var stylesheet: String { String(decoding: PackageResources.gloss_css, as: UTF8.self) }
    public static var pageScript: String { String(decoding: PackageResources.page_js, as: UTF8.self) }
    public static var indexScript: String { String(decoding: PackageResources.index_js, as: UTF8.self) }
}

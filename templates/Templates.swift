/// The HTML templates and stylesheet, compiled into the binary so an installed `gloss` needs no
/// files beside it.
public enum Templates {
    public static var page: String { String(decoding: PackageResources.page_html, as: UTF8.self) }
    public static var index: String { String(decoding: PackageResources.index_html, as: UTF8.self) }
    public static var stylesheet: String { String(decoding: PackageResources.gloss_css, as: UTF8.self) }
}

extension AnnotationSettings {
    /// The analyzers these settings ask for, in the order their findings are merged: the one
    /// place that turns settings into analyzers.
    var analyzers: [any Analyzer] {
        var list: [any Analyzer] = []
        if recognizeText { list.append(TextAnalyzer(options: recognition)) }
        if detectFaces { list.append(FaceAnalyzer(dimension: faceDimension)) }
        return list
    }
}

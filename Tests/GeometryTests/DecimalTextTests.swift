import GlossGeometry
import Testing

struct DecimalTextTests {
    @Test(arguments: [
        (1.5, 2, "1.5"), (2.0, 2, "2"), (0.125, 2, "0.13"), (-3.14159, 2, "-3.14"), (-0.001, 2, "0"),
        (96.0, 1, "96"), (4210.55, 1, "4210.6"), (0.05, 2, "0.05"), (1234567.891, 2, "1234567.89"),
        (Double.nan, 2, "0"), (1e19, 2, "1e+19"), (-1e300, 0, "-1e+300"), (9.2e15, 0, "9200000000000000"),
    ])
    func formatsWithoutTheLocale(value: Double, digits: Int, expected: String) {
        #expect(DecimalText.format(value, maximumFractionDigits: digits) == expected)
    }
}

from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class EncryptionAlgorithm(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    UNKNOWN_ENCRYPTION: _ClassVar[EncryptionAlgorithm]
    AES_CTR_128: _ClassVar[EncryptionAlgorithm]
    AES_CTR_256: _ClassVar[EncryptionAlgorithm]

class KeyProviderKind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    UNKNOWN: _ClassVar[KeyProviderKind]
    HADOOP: _ClassVar[KeyProviderKind]
    AWS: _ClassVar[KeyProviderKind]
    GCP: _ClassVar[KeyProviderKind]
    AZURE: _ClassVar[KeyProviderKind]

class CalendarKind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    UNKNOWN_CALENDAR: _ClassVar[CalendarKind]
    JULIAN_GREGORIAN: _ClassVar[CalendarKind]
    PROLEPTIC_GREGORIAN: _ClassVar[CalendarKind]

class CompressionKind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    NONE: _ClassVar[CompressionKind]
    ZLIB: _ClassVar[CompressionKind]
    SNAPPY: _ClassVar[CompressionKind]
    LZO: _ClassVar[CompressionKind]
    LZ4: _ClassVar[CompressionKind]
    ZSTD: _ClassVar[CompressionKind]
    BROTLI: _ClassVar[CompressionKind]
UNKNOWN_ENCRYPTION: EncryptionAlgorithm
AES_CTR_128: EncryptionAlgorithm
AES_CTR_256: EncryptionAlgorithm
UNKNOWN: KeyProviderKind
HADOOP: KeyProviderKind
AWS: KeyProviderKind
GCP: KeyProviderKind
AZURE: KeyProviderKind
UNKNOWN_CALENDAR: CalendarKind
JULIAN_GREGORIAN: CalendarKind
PROLEPTIC_GREGORIAN: CalendarKind
NONE: CompressionKind
ZLIB: CompressionKind
SNAPPY: CompressionKind
LZO: CompressionKind
LZ4: CompressionKind
ZSTD: CompressionKind
BROTLI: CompressionKind

class IntegerStatistics(_message.Message):
    __slots__ = ("minimum", "maximum", "sum")
    MINIMUM_FIELD_NUMBER: _ClassVar[int]
    MAXIMUM_FIELD_NUMBER: _ClassVar[int]
    SUM_FIELD_NUMBER: _ClassVar[int]
    minimum: int
    maximum: int
    sum: int
    def __init__(self, minimum: _Optional[int] = ..., maximum: _Optional[int] = ..., sum: _Optional[int] = ...) -> None: ...

class DoubleStatistics(_message.Message):
    __slots__ = ("minimum", "maximum", "sum")
    MINIMUM_FIELD_NUMBER: _ClassVar[int]
    MAXIMUM_FIELD_NUMBER: _ClassVar[int]
    SUM_FIELD_NUMBER: _ClassVar[int]
    minimum: float
    maximum: float
    sum: float
    def __init__(self, minimum: _Optional[float] = ..., maximum: _Optional[float] = ..., sum: _Optional[float] = ...) -> None: ...

class StringStatistics(_message.Message):
    __slots__ = ("minimum", "maximum", "sum", "lowerBound", "upperBound")
    MINIMUM_FIELD_NUMBER: _ClassVar[int]
    MAXIMUM_FIELD_NUMBER: _ClassVar[int]
    SUM_FIELD_NUMBER: _ClassVar[int]
    LOWERBOUND_FIELD_NUMBER: _ClassVar[int]
    UPPERBOUND_FIELD_NUMBER: _ClassVar[int]
    minimum: str
    maximum: str
    sum: int
    lowerBound: str
    upperBound: str
    def __init__(self, minimum: _Optional[str] = ..., maximum: _Optional[str] = ..., sum: _Optional[int] = ..., lowerBound: _Optional[str] = ..., upperBound: _Optional[str] = ...) -> None: ...

class BucketStatistics(_message.Message):
    __slots__ = ("count",)
    COUNT_FIELD_NUMBER: _ClassVar[int]
    count: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, count: _Optional[_Iterable[int]] = ...) -> None: ...

class DecimalStatistics(_message.Message):
    __slots__ = ("minimum", "maximum", "sum")
    MINIMUM_FIELD_NUMBER: _ClassVar[int]
    MAXIMUM_FIELD_NUMBER: _ClassVar[int]
    SUM_FIELD_NUMBER: _ClassVar[int]
    minimum: str
    maximum: str
    sum: str
    def __init__(self, minimum: _Optional[str] = ..., maximum: _Optional[str] = ..., sum: _Optional[str] = ...) -> None: ...

class DateStatistics(_message.Message):
    __slots__ = ("minimum", "maximum")
    MINIMUM_FIELD_NUMBER: _ClassVar[int]
    MAXIMUM_FIELD_NUMBER: _ClassVar[int]
    minimum: int
    maximum: int
    def __init__(self, minimum: _Optional[int] = ..., maximum: _Optional[int] = ...) -> None: ...

class TimestampStatistics(_message.Message):
    __slots__ = ("minimum", "maximum", "minimumUtc", "maximumUtc", "minimumNanos", "maximumNanos")
    MINIMUM_FIELD_NUMBER: _ClassVar[int]
    MAXIMUM_FIELD_NUMBER: _ClassVar[int]
    MINIMUMUTC_FIELD_NUMBER: _ClassVar[int]
    MAXIMUMUTC_FIELD_NUMBER: _ClassVar[int]
    MINIMUMNANOS_FIELD_NUMBER: _ClassVar[int]
    MAXIMUMNANOS_FIELD_NUMBER: _ClassVar[int]
    minimum: int
    maximum: int
    minimumUtc: int
    maximumUtc: int
    minimumNanos: int
    maximumNanos: int
    def __init__(self, minimum: _Optional[int] = ..., maximum: _Optional[int] = ..., minimumUtc: _Optional[int] = ..., maximumUtc: _Optional[int] = ..., minimumNanos: _Optional[int] = ..., maximumNanos: _Optional[int] = ...) -> None: ...

class BinaryStatistics(_message.Message):
    __slots__ = ("sum",)
    SUM_FIELD_NUMBER: _ClassVar[int]
    sum: int
    def __init__(self, sum: _Optional[int] = ...) -> None: ...

class CollectionStatistics(_message.Message):
    __slots__ = ("minChildren", "maxChildren", "totalChildren")
    MINCHILDREN_FIELD_NUMBER: _ClassVar[int]
    MAXCHILDREN_FIELD_NUMBER: _ClassVar[int]
    TOTALCHILDREN_FIELD_NUMBER: _ClassVar[int]
    minChildren: int
    maxChildren: int
    totalChildren: int
    def __init__(self, minChildren: _Optional[int] = ..., maxChildren: _Optional[int] = ..., totalChildren: _Optional[int] = ...) -> None: ...

class BoundingBox(_message.Message):
    __slots__ = ("xmin", "xmax", "ymin", "ymax", "zmin", "zmax", "mmin", "mmax")
    XMIN_FIELD_NUMBER: _ClassVar[int]
    XMAX_FIELD_NUMBER: _ClassVar[int]
    YMIN_FIELD_NUMBER: _ClassVar[int]
    YMAX_FIELD_NUMBER: _ClassVar[int]
    ZMIN_FIELD_NUMBER: _ClassVar[int]
    ZMAX_FIELD_NUMBER: _ClassVar[int]
    MMIN_FIELD_NUMBER: _ClassVar[int]
    MMAX_FIELD_NUMBER: _ClassVar[int]
    xmin: float
    xmax: float
    ymin: float
    ymax: float
    zmin: float
    zmax: float
    mmin: float
    mmax: float
    def __init__(self, xmin: _Optional[float] = ..., xmax: _Optional[float] = ..., ymin: _Optional[float] = ..., ymax: _Optional[float] = ..., zmin: _Optional[float] = ..., zmax: _Optional[float] = ..., mmin: _Optional[float] = ..., mmax: _Optional[float] = ...) -> None: ...

class GeospatialStatistics(_message.Message):
    __slots__ = ("bbox", "geospatialTypes")
    BBOX_FIELD_NUMBER: _ClassVar[int]
    GEOSPATIALTYPES_FIELD_NUMBER: _ClassVar[int]
    bbox: BoundingBox
    geospatialTypes: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, bbox: _Optional[_Union[BoundingBox, _Mapping]] = ..., geospatialTypes: _Optional[_Iterable[int]] = ...) -> None: ...

class ColumnStatistics(_message.Message):
    __slots__ = ("numberOfValues", "intStatistics", "doubleStatistics", "stringStatistics", "bucketStatistics", "decimalStatistics", "dateStatistics", "binaryStatistics", "timestampStatistics", "hasNull", "bytesOnDisk", "collectionStatistics", "geospatialStatistics")
    NUMBEROFVALUES_FIELD_NUMBER: _ClassVar[int]
    INTSTATISTICS_FIELD_NUMBER: _ClassVar[int]
    DOUBLESTATISTICS_FIELD_NUMBER: _ClassVar[int]
    STRINGSTATISTICS_FIELD_NUMBER: _ClassVar[int]
    BUCKETSTATISTICS_FIELD_NUMBER: _ClassVar[int]
    DECIMALSTATISTICS_FIELD_NUMBER: _ClassVar[int]
    DATESTATISTICS_FIELD_NUMBER: _ClassVar[int]
    BINARYSTATISTICS_FIELD_NUMBER: _ClassVar[int]
    TIMESTAMPSTATISTICS_FIELD_NUMBER: _ClassVar[int]
    HASNULL_FIELD_NUMBER: _ClassVar[int]
    BYTESONDISK_FIELD_NUMBER: _ClassVar[int]
    COLLECTIONSTATISTICS_FIELD_NUMBER: _ClassVar[int]
    GEOSPATIALSTATISTICS_FIELD_NUMBER: _ClassVar[int]
    numberOfValues: int
    intStatistics: IntegerStatistics
    doubleStatistics: DoubleStatistics
    stringStatistics: StringStatistics
    bucketStatistics: BucketStatistics
    decimalStatistics: DecimalStatistics
    dateStatistics: DateStatistics
    binaryStatistics: BinaryStatistics
    timestampStatistics: TimestampStatistics
    hasNull: bool
    bytesOnDisk: int
    collectionStatistics: CollectionStatistics
    geospatialStatistics: GeospatialStatistics
    def __init__(self, numberOfValues: _Optional[int] = ..., intStatistics: _Optional[_Union[IntegerStatistics, _Mapping]] = ..., doubleStatistics: _Optional[_Union[DoubleStatistics, _Mapping]] = ..., stringStatistics: _Optional[_Union[StringStatistics, _Mapping]] = ..., bucketStatistics: _Optional[_Union[BucketStatistics, _Mapping]] = ..., decimalStatistics: _Optional[_Union[DecimalStatistics, _Mapping]] = ..., dateStatistics: _Optional[_Union[DateStatistics, _Mapping]] = ..., binaryStatistics: _Optional[_Union[BinaryStatistics, _Mapping]] = ..., timestampStatistics: _Optional[_Union[TimestampStatistics, _Mapping]] = ..., hasNull: _Optional[bool] = ..., bytesOnDisk: _Optional[int] = ..., collectionStatistics: _Optional[_Union[CollectionStatistics, _Mapping]] = ..., geospatialStatistics: _Optional[_Union[GeospatialStatistics, _Mapping]] = ...) -> None: ...

class RowIndexEntry(_message.Message):
    __slots__ = ("positions", "statistics")
    POSITIONS_FIELD_NUMBER: _ClassVar[int]
    STATISTICS_FIELD_NUMBER: _ClassVar[int]
    positions: _containers.RepeatedScalarFieldContainer[int]
    statistics: ColumnStatistics
    def __init__(self, positions: _Optional[_Iterable[int]] = ..., statistics: _Optional[_Union[ColumnStatistics, _Mapping]] = ...) -> None: ...

class RowIndex(_message.Message):
    __slots__ = ("entry",)
    ENTRY_FIELD_NUMBER: _ClassVar[int]
    entry: _containers.RepeatedCompositeFieldContainer[RowIndexEntry]
    def __init__(self, entry: _Optional[_Iterable[_Union[RowIndexEntry, _Mapping]]] = ...) -> None: ...

class BloomFilter(_message.Message):
    __slots__ = ("numHashFunctions", "bitset", "utf8bitset")
    NUMHASHFUNCTIONS_FIELD_NUMBER: _ClassVar[int]
    BITSET_FIELD_NUMBER: _ClassVar[int]
    UTF8BITSET_FIELD_NUMBER: _ClassVar[int]
    numHashFunctions: int
    bitset: _containers.RepeatedScalarFieldContainer[int]
    utf8bitset: bytes
    def __init__(self, numHashFunctions: _Optional[int] = ..., bitset: _Optional[_Iterable[int]] = ..., utf8bitset: _Optional[bytes] = ...) -> None: ...

class BloomFilterIndex(_message.Message):
    __slots__ = ("bloomFilter",)
    BLOOMFILTER_FIELD_NUMBER: _ClassVar[int]
    bloomFilter: _containers.RepeatedCompositeFieldContainer[BloomFilter]
    def __init__(self, bloomFilter: _Optional[_Iterable[_Union[BloomFilter, _Mapping]]] = ...) -> None: ...

class Stream(_message.Message):
    __slots__ = ("kind", "column", "length")
    class Kind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = ()
        PRESENT: _ClassVar[Stream.Kind]
        DATA: _ClassVar[Stream.Kind]
        LENGTH: _ClassVar[Stream.Kind]
        DICTIONARY_DATA: _ClassVar[Stream.Kind]
        DICTIONARY_COUNT: _ClassVar[Stream.Kind]
        SECONDARY: _ClassVar[Stream.Kind]
        ROW_INDEX: _ClassVar[Stream.Kind]
        BLOOM_FILTER: _ClassVar[Stream.Kind]
        BLOOM_FILTER_UTF8: _ClassVar[Stream.Kind]
        ENCRYPTED_INDEX: _ClassVar[Stream.Kind]
        ENCRYPTED_DATA: _ClassVar[Stream.Kind]
        STRIPE_STATISTICS: _ClassVar[Stream.Kind]
        FILE_STATISTICS: _ClassVar[Stream.Kind]
    PRESENT: Stream.Kind
    DATA: Stream.Kind
    LENGTH: Stream.Kind
    DICTIONARY_DATA: Stream.Kind
    DICTIONARY_COUNT: Stream.Kind
    SECONDARY: Stream.Kind
    ROW_INDEX: Stream.Kind
    BLOOM_FILTER: Stream.Kind
    BLOOM_FILTER_UTF8: Stream.Kind
    ENCRYPTED_INDEX: Stream.Kind
    ENCRYPTED_DATA: Stream.Kind
    STRIPE_STATISTICS: Stream.Kind
    FILE_STATISTICS: Stream.Kind
    KIND_FIELD_NUMBER: _ClassVar[int]
    COLUMN_FIELD_NUMBER: _ClassVar[int]
    LENGTH_FIELD_NUMBER: _ClassVar[int]
    kind: int
    column: int
    length: int
    def __init__(self, kind: _Optional[int] = ..., column: _Optional[int] = ..., length: _Optional[int] = ...) -> None: ...

class ColumnEncoding(_message.Message):
    __slots__ = ("kind", "dictionarySize", "bloomEncoding")
    class Kind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = ()
        DIRECT: _ClassVar[ColumnEncoding.Kind]
        DICTIONARY: _ClassVar[ColumnEncoding.Kind]
        DIRECT_V2: _ClassVar[ColumnEncoding.Kind]
        DICTIONARY_V2: _ClassVar[ColumnEncoding.Kind]
    DIRECT: ColumnEncoding.Kind
    DICTIONARY: ColumnEncoding.Kind
    DIRECT_V2: ColumnEncoding.Kind
    DICTIONARY_V2: ColumnEncoding.Kind
    KIND_FIELD_NUMBER: _ClassVar[int]
    DICTIONARYSIZE_FIELD_NUMBER: _ClassVar[int]
    BLOOMENCODING_FIELD_NUMBER: _ClassVar[int]
    kind: int
    dictionarySize: int
    bloomEncoding: int
    def __init__(self, kind: _Optional[int] = ..., dictionarySize: _Optional[int] = ..., bloomEncoding: _Optional[int] = ...) -> None: ...

class StripeEncryptionVariant(_message.Message):
    __slots__ = ("streams", "encoding")
    STREAMS_FIELD_NUMBER: _ClassVar[int]
    ENCODING_FIELD_NUMBER: _ClassVar[int]
    streams: _containers.RepeatedCompositeFieldContainer[Stream]
    encoding: _containers.RepeatedCompositeFieldContainer[ColumnEncoding]
    def __init__(self, streams: _Optional[_Iterable[_Union[Stream, _Mapping]]] = ..., encoding: _Optional[_Iterable[_Union[ColumnEncoding, _Mapping]]] = ...) -> None: ...

class StripeFooter(_message.Message):
    __slots__ = ("streams", "columns", "writerTimezone", "encryption")
    STREAMS_FIELD_NUMBER: _ClassVar[int]
    COLUMNS_FIELD_NUMBER: _ClassVar[int]
    WRITERTIMEZONE_FIELD_NUMBER: _ClassVar[int]
    ENCRYPTION_FIELD_NUMBER: _ClassVar[int]
    streams: _containers.RepeatedCompositeFieldContainer[Stream]
    columns: _containers.RepeatedCompositeFieldContainer[ColumnEncoding]
    writerTimezone: str
    encryption: _containers.RepeatedCompositeFieldContainer[StripeEncryptionVariant]
    def __init__(self, streams: _Optional[_Iterable[_Union[Stream, _Mapping]]] = ..., columns: _Optional[_Iterable[_Union[ColumnEncoding, _Mapping]]] = ..., writerTimezone: _Optional[str] = ..., encryption: _Optional[_Iterable[_Union[StripeEncryptionVariant, _Mapping]]] = ...) -> None: ...

class StringPair(_message.Message):
    __slots__ = ("key", "value")
    KEY_FIELD_NUMBER: _ClassVar[int]
    VALUE_FIELD_NUMBER: _ClassVar[int]
    key: str
    value: str
    def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...

class Type(_message.Message):
    __slots__ = ("kind", "subtypes", "fieldNames", "maximumLength", "precision", "scale", "attributes", "crs", "algorithm")
    class Kind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = ()
        BOOLEAN: _ClassVar[Type.Kind]
        BYTE: _ClassVar[Type.Kind]
        SHORT: _ClassVar[Type.Kind]
        INT: _ClassVar[Type.Kind]
        LONG: _ClassVar[Type.Kind]
        FLOAT: _ClassVar[Type.Kind]
        DOUBLE: _ClassVar[Type.Kind]
        STRING: _ClassVar[Type.Kind]
        BINARY: _ClassVar[Type.Kind]
        TIMESTAMP: _ClassVar[Type.Kind]
        LIST: _ClassVar[Type.Kind]
        MAP: _ClassVar[Type.Kind]
        STRUCT: _ClassVar[Type.Kind]
        UNION: _ClassVar[Type.Kind]
        DECIMAL: _ClassVar[Type.Kind]
        DATE: _ClassVar[Type.Kind]
        VARCHAR: _ClassVar[Type.Kind]
        CHAR: _ClassVar[Type.Kind]
        TIMESTAMP_INSTANT: _ClassVar[Type.Kind]
        GEOMETRY: _ClassVar[Type.Kind]
        GEOGRAPHY: _ClassVar[Type.Kind]
    BOOLEAN: Type.Kind
    BYTE: Type.Kind
    SHORT: Type.Kind
    INT: Type.Kind
    LONG: Type.Kind
    FLOAT: Type.Kind
    DOUBLE: Type.Kind
    STRING: Type.Kind
    BINARY: Type.Kind
    TIMESTAMP: Type.Kind
    LIST: Type.Kind
    MAP: Type.Kind
    STRUCT: Type.Kind
    UNION: Type.Kind
    DECIMAL: Type.Kind
    DATE: Type.Kind
    VARCHAR: Type.Kind
    CHAR: Type.Kind
    TIMESTAMP_INSTANT: Type.Kind
    GEOMETRY: Type.Kind
    GEOGRAPHY: Type.Kind
    class EdgeInterpolationAlgorithm(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = ()
        SPHERICAL: _ClassVar[Type.EdgeInterpolationAlgorithm]
        VINCENTY: _ClassVar[Type.EdgeInterpolationAlgorithm]
        THOMAS: _ClassVar[Type.EdgeInterpolationAlgorithm]
        ANDOYER: _ClassVar[Type.EdgeInterpolationAlgorithm]
        KARNEY: _ClassVar[Type.EdgeInterpolationAlgorithm]
    SPHERICAL: Type.EdgeInterpolationAlgorithm
    VINCENTY: Type.EdgeInterpolationAlgorithm
    THOMAS: Type.EdgeInterpolationAlgorithm
    ANDOYER: Type.EdgeInterpolationAlgorithm
    KARNEY: Type.EdgeInterpolationAlgorithm
    KIND_FIELD_NUMBER: _ClassVar[int]
    SUBTYPES_FIELD_NUMBER: _ClassVar[int]
    FIELDNAMES_FIELD_NUMBER: _ClassVar[int]
    MAXIMUMLENGTH_FIELD_NUMBER: _ClassVar[int]
    PRECISION_FIELD_NUMBER: _ClassVar[int]
    SCALE_FIELD_NUMBER: _ClassVar[int]
    ATTRIBUTES_FIELD_NUMBER: _ClassVar[int]
    CRS_FIELD_NUMBER: _ClassVar[int]
    ALGORITHM_FIELD_NUMBER: _ClassVar[int]
    kind: int
    subtypes: _containers.RepeatedScalarFieldContainer[int]
    fieldNames: _containers.RepeatedScalarFieldContainer[str]
    maximumLength: int
    precision: int
    scale: int
    attributes: _containers.RepeatedCompositeFieldContainer[StringPair]
    crs: str
    algorithm: int
    def __init__(self, kind: _Optional[int] = ..., subtypes: _Optional[_Iterable[int]] = ..., fieldNames: _Optional[_Iterable[str]] = ..., maximumLength: _Optional[int] = ..., precision: _Optional[int] = ..., scale: _Optional[int] = ..., attributes: _Optional[_Iterable[_Union[StringPair, _Mapping]]] = ..., crs: _Optional[str] = ..., algorithm: _Optional[int] = ...) -> None: ...

class StripeInformation(_message.Message):
    __slots__ = ("offset", "indexLength", "dataLength", "footerLength", "numberOfRows", "encryptStripeId", "encryptedLocalKeys")
    OFFSET_FIELD_NUMBER: _ClassVar[int]
    INDEXLENGTH_FIELD_NUMBER: _ClassVar[int]
    DATALENGTH_FIELD_NUMBER: _ClassVar[int]
    FOOTERLENGTH_FIELD_NUMBER: _ClassVar[int]
    NUMBEROFROWS_FIELD_NUMBER: _ClassVar[int]
    ENCRYPTSTRIPEID_FIELD_NUMBER: _ClassVar[int]
    ENCRYPTEDLOCALKEYS_FIELD_NUMBER: _ClassVar[int]
    offset: int
    indexLength: int
    dataLength: int
    footerLength: int
    numberOfRows: int
    encryptStripeId: int
    encryptedLocalKeys: _containers.RepeatedScalarFieldContainer[bytes]
    def __init__(self, offset: _Optional[int] = ..., indexLength: _Optional[int] = ..., dataLength: _Optional[int] = ..., footerLength: _Optional[int] = ..., numberOfRows: _Optional[int] = ..., encryptStripeId: _Optional[int] = ..., encryptedLocalKeys: _Optional[_Iterable[bytes]] = ...) -> None: ...

class UserMetadataItem(_message.Message):
    __slots__ = ("name", "value")
    NAME_FIELD_NUMBER: _ClassVar[int]
    VALUE_FIELD_NUMBER: _ClassVar[int]
    name: str
    value: bytes
    def __init__(self, name: _Optional[str] = ..., value: _Optional[bytes] = ...) -> None: ...

class StripeStatistics(_message.Message):
    __slots__ = ("colStats",)
    COLSTATS_FIELD_NUMBER: _ClassVar[int]
    colStats: _containers.RepeatedCompositeFieldContainer[ColumnStatistics]
    def __init__(self, colStats: _Optional[_Iterable[_Union[ColumnStatistics, _Mapping]]] = ...) -> None: ...

class Metadata(_message.Message):
    __slots__ = ("stripeStats",)
    STRIPESTATS_FIELD_NUMBER: _ClassVar[int]
    stripeStats: _containers.RepeatedCompositeFieldContainer[StripeStatistics]
    def __init__(self, stripeStats: _Optional[_Iterable[_Union[StripeStatistics, _Mapping]]] = ...) -> None: ...

class ColumnarStripeStatistics(_message.Message):
    __slots__ = ("colStats",)
    COLSTATS_FIELD_NUMBER: _ClassVar[int]
    colStats: _containers.RepeatedCompositeFieldContainer[ColumnStatistics]
    def __init__(self, colStats: _Optional[_Iterable[_Union[ColumnStatistics, _Mapping]]] = ...) -> None: ...

class DataMask(_message.Message):
    __slots__ = ("name", "maskParameters", "columns")
    NAME_FIELD_NUMBER: _ClassVar[int]
    MASKPARAMETERS_FIELD_NUMBER: _ClassVar[int]
    COLUMNS_FIELD_NUMBER: _ClassVar[int]
    name: str
    maskParameters: _containers.RepeatedScalarFieldContainer[str]
    columns: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, name: _Optional[str] = ..., maskParameters: _Optional[_Iterable[str]] = ..., columns: _Optional[_Iterable[int]] = ...) -> None: ...

class EncryptionKey(_message.Message):
    __slots__ = ("keyName", "keyVersion", "algorithm")
    KEYNAME_FIELD_NUMBER: _ClassVar[int]
    KEYVERSION_FIELD_NUMBER: _ClassVar[int]
    ALGORITHM_FIELD_NUMBER: _ClassVar[int]
    keyName: str
    keyVersion: int
    algorithm: int
    def __init__(self, keyName: _Optional[str] = ..., keyVersion: _Optional[int] = ..., algorithm: _Optional[int] = ...) -> None: ...

class EncryptionVariant(_message.Message):
    __slots__ = ("root", "key", "encryptedKey", "stripeStatistics", "fileStatistics")
    ROOT_FIELD_NUMBER: _ClassVar[int]
    KEY_FIELD_NUMBER: _ClassVar[int]
    ENCRYPTEDKEY_FIELD_NUMBER: _ClassVar[int]
    STRIPESTATISTICS_FIELD_NUMBER: _ClassVar[int]
    FILESTATISTICS_FIELD_NUMBER: _ClassVar[int]
    root: int
    key: int
    encryptedKey: bytes
    stripeStatistics: _containers.RepeatedCompositeFieldContainer[Stream]
    fileStatistics: bytes
    def __init__(self, root: _Optional[int] = ..., key: _Optional[int] = ..., encryptedKey: _Optional[bytes] = ..., stripeStatistics: _Optional[_Iterable[_Union[Stream, _Mapping]]] = ..., fileStatistics: _Optional[bytes] = ...) -> None: ...

class Encryption(_message.Message):
    __slots__ = ("mask", "key", "variants", "keyProvider")
    MASK_FIELD_NUMBER: _ClassVar[int]
    KEY_FIELD_NUMBER: _ClassVar[int]
    VARIANTS_FIELD_NUMBER: _ClassVar[int]
    KEYPROVIDER_FIELD_NUMBER: _ClassVar[int]
    mask: _containers.RepeatedCompositeFieldContainer[DataMask]
    key: _containers.RepeatedCompositeFieldContainer[EncryptionKey]
    variants: _containers.RepeatedCompositeFieldContainer[EncryptionVariant]
    keyProvider: int
    def __init__(self, mask: _Optional[_Iterable[_Union[DataMask, _Mapping]]] = ..., key: _Optional[_Iterable[_Union[EncryptionKey, _Mapping]]] = ..., variants: _Optional[_Iterable[_Union[EncryptionVariant, _Mapping]]] = ..., keyProvider: _Optional[int] = ...) -> None: ...

class Footer(_message.Message):
    __slots__ = ("headerLength", "contentLength", "stripes", "types", "metadata", "numberOfRows", "statistics", "rowIndexStride", "writer", "encryption", "calendar", "softwareVersion")
    HEADERLENGTH_FIELD_NUMBER: _ClassVar[int]
    CONTENTLENGTH_FIELD_NUMBER: _ClassVar[int]
    STRIPES_FIELD_NUMBER: _ClassVar[int]
    TYPES_FIELD_NUMBER: _ClassVar[int]
    METADATA_FIELD_NUMBER: _ClassVar[int]
    NUMBEROFROWS_FIELD_NUMBER: _ClassVar[int]
    STATISTICS_FIELD_NUMBER: _ClassVar[int]
    ROWINDEXSTRIDE_FIELD_NUMBER: _ClassVar[int]
    WRITER_FIELD_NUMBER: _ClassVar[int]
    ENCRYPTION_FIELD_NUMBER: _ClassVar[int]
    CALENDAR_FIELD_NUMBER: _ClassVar[int]
    SOFTWAREVERSION_FIELD_NUMBER: _ClassVar[int]
    headerLength: int
    contentLength: int
    stripes: _containers.RepeatedCompositeFieldContainer[StripeInformation]
    types: _containers.RepeatedCompositeFieldContainer[Type]
    metadata: _containers.RepeatedCompositeFieldContainer[UserMetadataItem]
    numberOfRows: int
    statistics: _containers.RepeatedCompositeFieldContainer[ColumnStatistics]
    rowIndexStride: int
    writer: int
    encryption: Encryption
    calendar: int
    softwareVersion: str
    def __init__(self, headerLength: _Optional[int] = ..., contentLength: _Optional[int] = ..., stripes: _Optional[_Iterable[_Union[StripeInformation, _Mapping]]] = ..., types: _Optional[_Iterable[_Union[Type, _Mapping]]] = ..., metadata: _Optional[_Iterable[_Union[UserMetadataItem, _Mapping]]] = ..., numberOfRows: _Optional[int] = ..., statistics: _Optional[_Iterable[_Union[ColumnStatistics, _Mapping]]] = ..., rowIndexStride: _Optional[int] = ..., writer: _Optional[int] = ..., encryption: _Optional[_Union[Encryption, _Mapping]] = ..., calendar: _Optional[int] = ..., softwareVersion: _Optional[str] = ...) -> None: ...

class FileStatistics(_message.Message):
    __slots__ = ("column",)
    COLUMN_FIELD_NUMBER: _ClassVar[int]
    column: _containers.RepeatedCompositeFieldContainer[ColumnStatistics]
    def __init__(self, column: _Optional[_Iterable[_Union[ColumnStatistics, _Mapping]]] = ...) -> None: ...

class PostScript(_message.Message):
    __slots__ = ("footerLength", "compression", "compressionBlockSize", "version", "metadataLength", "writerVersion", "stripeStatisticsLength", "magic")
    FOOTERLENGTH_FIELD_NUMBER: _ClassVar[int]
    COMPRESSION_FIELD_NUMBER: _ClassVar[int]
    COMPRESSIONBLOCKSIZE_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    METADATALENGTH_FIELD_NUMBER: _ClassVar[int]
    WRITERVERSION_FIELD_NUMBER: _ClassVar[int]
    STRIPESTATISTICSLENGTH_FIELD_NUMBER: _ClassVar[int]
    MAGIC_FIELD_NUMBER: _ClassVar[int]
    footerLength: int
    compression: int
    compressionBlockSize: int
    version: _containers.RepeatedScalarFieldContainer[int]
    metadataLength: int
    writerVersion: int
    stripeStatisticsLength: int
    magic: str
    def __init__(self, footerLength: _Optional[int] = ..., compression: _Optional[int] = ..., compressionBlockSize: _Optional[int] = ..., version: _Optional[_Iterable[int]] = ..., metadataLength: _Optional[int] = ..., writerVersion: _Optional[int] = ..., stripeStatisticsLength: _Optional[int] = ..., magic: _Optional[str] = ...) -> None: ...

package ferrobase.hbaseexport;
class Placeholder {}
